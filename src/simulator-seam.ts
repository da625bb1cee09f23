// The one seam between the product and its OpenStack simulator (cloudsim/, a package of its own): the
// process modes that embed the simulated cloud (`sim`, and `all` for `npm start`) and the port check of
// those modes reach it through this file only. Nothing else under src/ or workers/ imports cloudsim/
// (test/layering.test.ts fails naming the file that does); a real cloud needs none of it.
export { SERVICE_USER, SIM_PORT_VARIABLES, simListenFromEnv, startEmbeddedSim, writeCloudsYaml, type EmbeddedSim } from '../cloudsim/embedded.js';
