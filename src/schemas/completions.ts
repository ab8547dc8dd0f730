import { Type, type Static } from '@sinclair/typebox';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * `CompletionsCreateRequestInputs`: an OpenAI chat-completions body (`model`, `messages`,
 * `temperature`, `max_tokens`, `tools`, … pass through to the provider) plus Weave's `prompt` (a
 * `MessagesPrompt` ref whose messages come first) and `template_vars` (`{name}` placeholders).
 */
export const CompletionsCreateRequestInputs = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: Type.Optional(Type.Array(Type.Unknown())),
    prompt: Type.Optional(Nullable(Type.String())),
    template_vars: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  },
  { additionalProperties: true },
);
export type CompletionsCreateRequestInputs = Static<typeof CompletionsCreateRequestInputs>;

/** `POST /completions/create` and `/completions/create_stream`; unknown top-level fields → 422. */
export const CompletionsCreateReq = Type.Object(
  {
    project_id: Type.String(),
    inputs: CompletionsCreateRequestInputs,
    /** Server-populated: the call is recorded as the authenticated caller whatever this says. */
    wb_user_id: Type.Optional(Nullable(Type.String())),
    /** Record the completion as a `weave.completions_create` call (default true). */
    track_llm_call: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: false },
);
export type CompletionsCreateReq = Static<typeof CompletionsCreateReq>;

/** The provider's answer as it is, or `{error}`; the recorded call's id when tracked. */
export const CompletionsCreateRes = Type.Object({
  response: Type.Record(Type.String(), Type.Unknown()),
  weave_call_id: Type.Optional(Nullable(Type.String())),
});
export type CompletionsCreateRes = Static<typeof CompletionsCreateRes>;
