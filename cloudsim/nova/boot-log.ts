// Every server Nova booted, by project and name, kept apart from the servers themselves (deleted
// ones are dropped after an hour of simulated time). Worker code names each server it boots after
// the node it is for, so a name booted twice is a node booted twice: the admin API's GET /v1/boots
// is how a test or soak proves "no duplicate servers" after the fact, deletions and all.

export interface RepeatedBoot {
  project_id: string;
  name: string;
  /** Every server booted under the name, oldest first. */
  server_ids: string[];
  /** A boot found another live server of the project with the name (a true duplicate, not a replacement). */
  concurrent: boolean;
}

export interface BootReport {
  /** Servers booted (in the project, when asked for one). */
  booted: number;
  /** Distinct (project, name) pairs among them. */
  names: number;
  repeated: RepeatedBoot[];
}

interface Entry {
  project: string;
  name: string;
  ids: string[];
  concurrent: boolean;
}

/** At most this many names are remembered (the oldest are forgotten first): the simulator runs for days under `npm start`. */
const MAX_NAMES = 200_000;

export class BootLog {
  private readonly entries = new Map<string, Entry>();

  /** A server was booted; `liveSameName`: the project had another live server with its name. */
  record(project: string, name: string, id: string, liveSameName: boolean): void {
    const key = `${project}\0${name}`;
    let e = this.entries.get(key);
    if (!e) {
      e = { project, name, ids: [], concurrent: false };
      this.entries.set(key, e);
      if (this.entries.size > MAX_NAMES) this.entries.delete(this.entries.keys().next().value!);
    }
    e.ids.push(id);
    e.concurrent ||= liveSameName;
  }

  report(projectId?: string): BootReport {
    let booted = 0;
    let names = 0;
    const repeated: RepeatedBoot[] = [];
    for (const e of this.entries.values()) {
      if (projectId !== undefined && e.project !== projectId) continue;
      booted += e.ids.length;
      names++;
      if (e.ids.length > 1) repeated.push({ project_id: e.project, name: e.name, server_ids: [...e.ids], concurrent: e.concurrent });
    }
    return { booted, names, repeated };
  }
}
