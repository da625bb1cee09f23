// Nova's flavors, in memory. Read-only through the API for now; tests and the seed add flavors here.
import { Faults } from '../common/faults.js';

export interface Flavor {
  /** The flavor id users see (Nova's flavorid): any string, usually short digits. */
  id: string;
  name: string;
  vcpus: number;
  /** MiB. */
  ram: number;
  /** GiB. */
  disk: number;
  ephemeral: number;
  /** MiB; 0 = none. */
  swap: number;
  rxtx_factor: number;
  isPublic: boolean;
  disabled: boolean;
  description: string | null;
  extraSpecs: Record<string, string>;
  /** Projects allowed to use a non-public flavor. */
  projects: string[];
  /** Epoch ms; sort key `created_at`. */
  createdAt: number;
}

export type NewFlavor = Partial<Flavor> & Pick<Flavor, 'id' | 'name' | 'vcpus' | 'ram' | 'disk'>;

export class NovaState {
  readonly flavors = new Map<string, Flavor>();
  readonly faults = new Faults();
  /** [api] max_limit: the largest page, also the page size when no limit is asked. */
  maxLimit = 1000;

  addFlavor(input: NewFlavor): Flavor {
    if (this.flavors.has(input.id)) throw new Error(`nova sim: flavor ${input.id} exists`);
    const flavor: Flavor = {
      ephemeral: 0,
      swap: 0,
      rxtx_factor: 1.0,
      isPublic: true,
      disabled: false,
      description: null,
      extraSpecs: {},
      projects: [],
      createdAt: Date.now(),
      ...input,
    };
    this.flavors.set(flavor.id, flavor);
    return flavor;
  }

  removeFlavor(id: string): void {
    this.flavors.delete(id);
  }
}
