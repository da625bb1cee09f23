// How a value a user gave is looked up: OpenStack's ids are UUIDs (networks, subnets, images), so a value that is
// not one is a name, asked for by name at once rather than probed by id first (a 404 on every name lookup).
// Flavor ids are free strings: a flavor is matched by id or name over one list instead.

/** oslo's is_uuid_like: a UUID with or without dashes, braces or urn:uuid: prefix, any case. */
export function isUuidLike(value: string): boolean {
  const hex = value.toLowerCase().replace(/^urn:/, '').replace(/^uuid:/, '').replace(/[{}-]/g, '');
  return /^[0-9a-f]{32}$/.test(hex);
}

/** The flavor `ref` names, by id first, then by name (Magnum's match over the whole list). */
export function flavorOf<F extends { id: string; name?: string | null }>(flavors: readonly F[], ref: string): F | undefined {
  return flavors.find((f) => f.id === ref) ?? flavors.find((f) => f.name === ref);
}
