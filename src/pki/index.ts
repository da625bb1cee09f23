// The cluster PKI: CA generation, CSR signing, storage with sealed keys.
export { CA_KINDS, CA_VALIDITY_DAYS, createCa, createServiceAccountKey, generateClusterPki, kubernetesCaName, PKI_FIELD } from './ca.js';
export type { CaKind, ControlPlanePki, KeyPair } from './ca.js';
export { KEY_ALGORITHM } from './keys.js';
export { DEFAULT_TERM_DAYS, filterExtensions, parseCsr, signCsr, type SignOptions } from './sign.js';
export { loadCa, loadCaCert, loadClusterPki, pkiGeneration, rotateClusterPki, sealContext, storeClusterPki } from './store.js';
