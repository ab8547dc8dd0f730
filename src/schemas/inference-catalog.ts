import { Type, type Static } from '@sinclair/typebox';

/**
 * The inference catalogues (docs/spec/otel-service-queues.md §C): model listings in OpenRouter's provider
 * format and serverless hardware options. Unknown keys of a listed model are kept.
 */
export const RouterModel = Type.Object(
  {
    id: Type.String(),
    name: Type.Optional(Type.String()),
    created: Type.Optional(Type.Integer()),
    input_modalities: Type.Optional(Type.Array(Type.String())),
    output_modalities: Type.Optional(Type.Array(Type.String())),
    quantization: Type.Optional(Type.String()),
    context_length: Type.Optional(Type.Integer()),
    max_output_length: Type.Optional(Type.Integer()),
    /** USD per token (per image / per request for those keys), as strings. */
    pricing: Type.Optional(Type.Record(Type.String(), Type.String())),
    supported_sampling_parameters: Type.Optional(Type.Array(Type.String())),
    supported_features: Type.Optional(Type.Array(Type.String())),
    datacenters: Type.Optional(Type.Array(Type.Object({ country_code: Type.String() }))),
    deprecation_date: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const HardwareOption = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  pricing: Type.Object({
    cents_per_million_input_tokens: Type.Number(),
    cents_per_million_output_tokens: Type.Number(),
  }),
  specs: Type.Record(Type.String(), Type.Unknown()),
});

/** The file `HEDDLE_INFERENCE_CATALOG` names; every part may be left out (an empty list). */
export const CatalogFile = Type.Object(
  {
    router_models: Type.Optional(Type.Array(RouterModel)),
    analysis_models: Type.Optional(Type.Array(RouterModel)),
    /** Hardware options by catalogue model id (`publisher/model`). */
    hardware: Type.Optional(Type.Record(Type.String(), Type.Array(HardwareOption))),
  },
  { additionalProperties: false },
);
export type CatalogFile = Static<typeof CatalogFile>;

export const RouterModelsRes = Type.Object({ data: Type.Array(RouterModel) });
export const HardwareRes = Type.Object({ hardware: Type.Array(HardwareOption) });
export const HardwareQuery = Type.Object({ model: Type.String() });
export const PartnerParams = Type.Object({ partner: Type.String() });
