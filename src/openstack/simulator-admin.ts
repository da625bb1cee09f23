// The simulator's admin API (catalog type cloudsim-admin), which only the simulated cloud offers: where
// a simulated cluster's API address is really served (the simulator routes addresses of its own).
import { requestJson, type Session } from './http.js';

export class SimulatorAdminClient {
  constructor(private readonly session: Session) {}

  /** GET `path` (e.g. /kube/endpoints/<address>/<port>), its JSON body. */
  async get(path: string): Promise<unknown> {
    return (await requestJson<unknown>(this.session, { path, operation: 'kube.endpoints' })).body;
  }
}
