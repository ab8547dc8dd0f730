/**
 * The W&B GraphQL surface Heddle answers at `POST /graphql`: the part the official Weave clients
 * use to learn who the caller is and to make sure a project exists before tracing
 * (see docs/python-client.md for what weave 0.54.0 sends). Types and field names follow
 * W&B's public schema so the clients' documents validate unchanged; fields Heddle has no data for
 * are nullable and resolve to null.
 */
export const WANDB_SDL = /* GraphQL */ `
  "The authenticated user behind the API key."
  type User {
    id: ID!
    username: String!
    name: String!
    admin: Boolean!
    "The entity projects go to when a client names none (weave.init(\\"project\\"))."
    defaultEntity: Entity
  }

  "A user or team namespace; projects live under entities."
  type Entity {
    id: ID!
    name: String!
    "False when the caller may create projects and write traces under this entity."
    readOnly: Boolean!
    isTeam: Boolean!
    project(name: String!): Project
  }

  type Project {
    id: ID!
    "The id the trace server uses internally (same as /service/projects_info)."
    internalId: ID!
    name: String!
    entityName: String!
    entity: Entity!
    description: String
    createdAt: String!
    "W&B artifacts are not stored by Heddle: always null."
    artifact(name: String!): Artifact
  }

  type Artifact {
    id: ID!
    currentManifest: ArtifactManifest
  }

  type ArtifactManifest {
    id: ID!
    file: File
  }

  type File {
    directUrl: String
  }

  type ServerInfo {
    "Public address of this server (HEDDLE_PUBLIC_URL)."
    frontendHost: String!
  }

  type Query {
    viewer: User
    "Null when the entity does not exist or the caller is not a member of it."
    entity(name: String!): Entity
    "Null when the project was never created or belongs to an entity the caller is not a member of."
    project(name: String!, entityName: String): Project
    serverInfo: ServerInfo!
    "W&B artifacts are not stored by Heddle: always null."
    artifact(id: ID!): Artifact
  }

  "In W&B a project is called a model in this mutation's name."
  input UpsertModelInput {
    id: String
    name: String
    entityName: String
    description: String
    repo: String
    framework: String
    access: String
    views: String
  }

  type UpsertModelPayload {
    model: Project
    project: Project
    "True when this call created the project."
    inserted: Boolean!
  }

  type Mutation {
    "Creates the project when missing (idempotent); the entity defaults to the caller's default entity."
    upsertModel(input: UpsertModelInput!): UpsertModelPayload
  }
`;

/** A GraphQL-over-HTTP request body (JSON). */
export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}
