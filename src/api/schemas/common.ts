// Schema building blocks shared by the v1 resources.
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import { LABELS, NODE_COUNT_CEILING, PATCH_OPS_MAX, RESERVED_KEYS, STRING_MAX } from '../../domain/limits.js';

/** A nullable schema as a JSON-schema type array (keeps ajv's errors and the OpenAPI 3.1 document simple). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

export const NStr = (max = 255, min = 1) => Nullable(Type.String({ minLength: min, maxLength: max }));
export const NBool = () => Nullable(Type.Boolean());
export const NInt = (opts: { minimum?: number; maximum?: number } = {}) => Nullable(Type.Integer(opts));

export const Link = Type.Object({ href: Type.String(), rel: Type.String() });
export const Links = Type.Array(Link);
export const Timestamp = Nullable(Type.String({ description: 'ISO-8601 UTC, seconds precision' }));

/** A map's keys: 1 to `max` characters, never a name a JavaScript object reads from its prototype. */
export const MapKey = (max: number) => ({ minLength: 1, maxLength: max, not: { enum: [...RESERVED_KEYS] } });

// A type array (not anyOf): ajv's coercion leaves a value alone when its type is listed.
export const LabelValue = Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'], maxLength: LABELS.valueLength });
const labelMap = { maxProperties: LABELS.count, propertyNames: MapKey(LABELS.keyLength) };
export const LabelsIn = Nullable(Type.Record(Type.String(), LabelValue, labelMap));
/** Labels of the legacy bodies (bays, baymodels): strings only. */
export const StringLabelsIn = Nullable(Type.Record(Type.String(), Type.String({ maxLength: LABELS.valueLength }), labelMap));
export const LabelsOut = Nullable(Type.Record(Type.String(), Type.String()));

export const Ident = Type.String({ description: 'UUID or name', minLength: 1, maxLength: STRING_MAX });

/** The largest event id a query may name (a bigint column read as a JavaScript number). */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** A query argument's string: Magnum's attributes' length. */
export const QueryStr = (opts: { description?: string; default?: string } = {}) => Type.String({ maxLength: STRING_MAX, ...opts });

/** A node count's range in a schema (the deployment's MAX_NODE_COUNT may be lower than the ceiling: checkAtMost). */
export const NODE_COUNT_RANGE = { minimum: 0, maximum: NODE_COUNT_CEILING };

export const ListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ description: 'At most max_limit (1000 by default): a larger limit is that maximum, as in Magnum.' })),
    marker: Type.Optional(QueryStr({ description: 'UUID of the last item of the previous page; one the caller cannot see is not found (404).' })),
    sort_key: Type.Optional(QueryStr()),
    sort_dir: Type.Optional(QueryStr()),
  },
  { additionalProperties: false },
);
export type ListQueryT = Static<typeof ListQuery>;

/**
 * A JSON patch body. Magnum's rules check it (checkPatch), with their own errors, not the validator:
 * the handler receives it as unknown.
 */
export const PatchDocument = Type.Unsafe<unknown>(
  Type.Array(Type.Object({ op: Type.String(), path: Type.String({ maxLength: STRING_MAX }), value: Type.Optional(Type.Unknown()) }), {
    description: 'JSON patch',
    maxItems: PATCH_OPS_MAX,
  }),
);

/** The 204 answers: no body (documented as null). */
export const NoContent = Type.Unsafe<undefined>(Type.Null());

/** `{"uuid": ...}` answers of the asynchronous operations. */
export const UuidBody = Type.Object({ uuid: Type.String({ format: 'uuid' }) });

/** Magnum's error envelope, for every error response of the document. */
export const ErrorEnvelope = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        request_id: Type.String(),
        code: Type.String(),
        status: Type.Integer(),
        title: Type.String(),
        detail: Nullable(Type.String()),
        links: Type.Array(Type.Unknown()),
      }),
    ),
  },
  { $id: 'ErrorEnvelope' },
);

/** Keystone's 401 body (keystonemiddleware's shape, outside Magnum's envelope). */
export const Unauthorized = Type.Object(
  { error: Type.Object({ code: Type.Literal(401), title: Type.String(), message: Type.String() }) },
  { $id: 'Unauthorized' },
);

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, Type.Ref(c === 401 ? Unauthorized : ErrorEnvelope)]));

/** A nullable string enum. */
export const NEnum = <T extends string>(values: readonly T[]) =>
  Type.Unsafe<T | null>({ type: ['string', 'null'], enum: [...values, null] });
