import { Type, type Static } from '@sinclair/typebox';
import { EntityName, Nullable, strict } from './common.js';

/**
 * API key management over HTTP (routes/keys.ts). Our choice: Weave has no such API (W&B manages
 * keys in its web app); the bodies follow the house style of POST `/<area>/<verb>` with snake_case.
 */

/** User names: 1 to 128 characters, no `/` (entities follow domain/project-name.ts, `EntityName`). */
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 128, pattern: '^[^/]+$', description });

export const KeyCreateReq = Type.Object(
  {
    entity: EntityName('The entity the key reaches; its user becomes a member.'),
    username: Type.Optional(Name('Owner of the key; created when missing. Default: the entity name.')),
    entity_admin: Type.Optional(
      Type.Boolean({
        description: 'Also make the user an admin of the entity (may manage its keys); as role "admin".',
      }),
    ),
    role: Type.Optional(
      Type.Union([Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')], {
        description:
          "The user's role in the entity: admin (keys, roles, deletion), member (read and write) or viewer (read only). Default: member for a new member, unchanged otherwise.",
      }),
    ),
    admin: Type.Optional(Type.Boolean({ description: 'An instance admin key (every entity); instance admins only.' })),
  },
  strict,
);
export type KeyCreateReq = Static<typeof KeyCreateReq>;

export const KeyCreateRes = Type.Object({
  id: Type.String(),
  key: Type.String({ description: 'The secret: shown once, only its hash is kept.' }),
  prefix: Type.String(),
  username: Type.String(),
  entity: Type.String(),
  entity_admin: Type.Boolean(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')]),
  admin: Type.Boolean(),
});
export type KeyCreateRes = Static<typeof KeyCreateRes>;

export const KeyQueryReq = Type.Object(
  {
    entity: Type.Optional(
      EntityName(
        'Keys of the members of this entity. Default: every entity the caller administers (all for instance admins).',
      ),
    ),
  },
  strict,
);
export type KeyQueryReq = Static<typeof KeyQueryReq>;

/** A key as listed: never its secret. */
export const KeySchema = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to tell keys apart.' }),
  username: Type.String(),
  admin: Type.Boolean({ description: 'An instance admin key.' }),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
});
export type KeySchema = Static<typeof KeySchema>;

export const KeyQueryRes = Type.Object({ keys: Type.Array(KeySchema) });
export type KeyQueryRes = Static<typeof KeyQueryRes>;

export const KeyRevokeReq = Type.Object(
  {
    entity: EntityName('The entity whose member owns the key.'),
    id: Type.String({ minLength: 1, maxLength: 128 }),
  },
  strict,
);
export type KeyRevokeReq = Static<typeof KeyRevokeReq>;

export const KeyRevokeRes = KeySchema;
