import { useEffect, useState } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useCanWrite } from '../../api/auth.js';
import { useCall } from '../../api/calls.js';
import { runCompletion, streamCompletion, useInvalidateCalls } from '../../api/completions.js';
import { useObject } from '../../api/objects.js';
import { PageHeading } from '../../ui/page-heading.js';
import {
  completionInputs,
  completionOutcome,
  EMPTY_STREAM,
  emptyVariant,
  foldStreamLine,
  messagesFromPrompt,
  MAX_VARIANTS,
  variantFromInputs,
  variantProblem,
  type Variant,
} from '../../lib/playground.js';
import { LoadPrompt } from './load-prompt.js';
import { useModelSuggestions } from './model-suggestions.js';
import { SavePrompt } from './save-prompt.js';
import { VariantEditor } from './variant-editor.js';
import { VariantResult, type RunState } from './variant-result.js';

const playgroundRoute = getRouteApi('/$entity/$project/weave/playground');
const MODEL_LIST_ID = 'playground-models';

/**
 * The playground: up to four variants side by side (model, parameters, messages), run together
 * through `/completions/create_stream` (or `/completions/create`), each answer linked to the call it
 * recorded; `?call=<id>` starts from a chat call's inputs, `?prompt=<name>:<digest>` from a saved
 * `MessagesPrompt`, and a variant's messages can be saved as one.
 */
export function PlaygroundPage() {
  const { entity, project } = playgroundRoute.useParams();
  const { call: callId, prompt } = playgroundRoute.useSearch();
  const projectId = `${entity}/${project}`;
  const canWrite = useCanWrite(entity);
  const source = useCall(projectId, callId ?? null);
  const [variants, setVariants] = useState<Variant[]>(() => [emptyVariant()]);
  const [runs, setRuns] = useState<RunState[]>([{ kind: 'idle' }]);
  const [loadedFrom, setLoadedFrom] = useState<string | null>(null);
  const [stream, setStream] = useState(true);
  const cut = prompt ? prompt.lastIndexOf(':') : -1;
  const promptName = prompt && cut > 0 ? prompt.slice(0, cut) : null;
  const promptObj = useObject(projectId, promptName, promptName ? prompt!.slice(cut + 1) : null);
  const [loadedPrompt, setLoadedPrompt] = useState<string | null>(null);
  const invalidateCalls = useInvalidateCalls(projectId);
  const { models, prompts } = useModelSuggestions(entity, project);

  const fromCall = source.data ? variantFromInputs(source.data.inputs) : null;
  useEffect(() => {
    if (!callId || loadedFrom === callId || !fromCall) return;
    setVariants([fromCall]);
    setRuns([{ kind: 'idle' }]);
    setLoadedFrom(callId);
  }, [callId, loadedFrom, fromCall]);

  const fromPrompt = promptObj.data ? messagesFromPrompt(promptObj.data.val) : null;
  useEffect(() => {
    if (!prompt || loadedPrompt === prompt || !fromPrompt) return;
    setVariants([{ ...emptyVariant(), messages: fromPrompt }]);
    setRuns([{ kind: 'idle' }]);
    setLoadedPrompt(prompt);
  }, [prompt, loadedPrompt, fromPrompt]);

  const problems = variants.map(variantProblem);
  const running = runs.some((r) => r.kind === 'running');
  const runOne = async (v: Variant, i: number): Promise<RunState> => {
    const inputs = completionInputs(v);
    if (!stream) {
      const res = await runCompletion(projectId, inputs);
      return { kind: 'done', answer: { ...completionOutcome(res.response), callId: res.weave_call_id ?? null } };
    }
    let answer = EMPTY_STREAM;
    await streamCompletion(projectId, inputs, (line) => {
      answer = foldStreamLine(answer, line);
      const partial = answer;
      setRuns((prev) => prev.map((r, at) => (at === i ? { kind: 'running', partial } : r)));
    });
    return { kind: 'done', answer };
  };
  const runAll = async () => {
    setRuns(variants.map(() => ({ kind: 'running' })));
    await Promise.all(
      variants.map(async (v, i) => {
        let next: RunState;
        try {
          next = await runOne(v, i);
        } catch (error) {
          next = { kind: 'failed', message: (error as Error).message };
        }
        setRuns((prev) => prev.map((r, at) => (at === i ? next : r)));
      }),
    );
    invalidateCalls();
  };
  const update = (i: number, next: Variant) => setVariants((prev) => prev.map((v, at) => (at === i ? next : v)));
  const add = (from: Variant) => {
    setVariants((prev) => [...prev, structuredClone(from)]);
    setRuns((prev) => [...prev, { kind: 'idle' }]);
  };
  const remove = (i: number) => {
    setVariants((prev) => prev.filter((_, at) => at !== i));
    setRuns((prev) => prev.filter((_, at) => at !== i));
  };

  return (
    <main className="page playground-page">
      <div className="page-head">
        <PageHeading>Playground</PageHeading>
        {canWrite && (
          <label className="small">
            <input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} /> Stream answers
          </label>
        )}
        {canWrite && (
          <button
            type="button"
            className="primary"
            disabled={running || problems.some((p) => p !== null)}
            onClick={() => void runAll()}
          >
            {variants.length > 1 ? 'Run all' : 'Run'}
          </button>
        )}
      </div>
      <p className="muted small">
        Each run is one chat completion through the project’s providers (a Provider object’s id, or heddle/ and a
        trained model), recorded as a weave.completions_create call.
        {!canWrite && ` You are a viewer of ${entity}: running a completion records a call, which needs write access.`}
      </p>
      {callId && source.isPending && <p className="muted">Loading call {callId}…</p>}
      {callId && source.isError && <p role="alert">Could not load the call: {source.error.message}</p>}
      {callId && source.data === null && (
        <p role="alert">
          No call {callId} in {projectId}.
        </p>
      )}
      {callId && source.data && !fromCall && (
        <p role="alert">Call {callId} has no chat messages in its inputs to start from.</p>
      )}
      {callId && loadedFrom === callId && (
        <p className="small">
          Started from{' '}
          <Link to="/$entity/$project/r/call/$callId" params={{ entity, project, callId }}>
            call {callId.slice(0, 8)}
          </Link>
          .
        </p>
      )}
      {prompt && promptObj.isError && (
        <p role="alert">
          Could not load prompt {prompt}: {promptObj.error.message}
        </p>
      )}
      {prompt && loadedPrompt === prompt && promptName && promptObj.data && (
        <p className="small">
          Started from prompt{' '}
          <Link
            to="/$entity/$project/weave/objects/$name/versions/$digest"
            params={{ entity, project, name: promptName, digest: promptObj.data.digest }}
            search={{}}
          >
            {promptName} v{promptObj.data.version_index}
          </Link>
          .
        </p>
      )}
      <datalist id={MODEL_LIST_ID}>
        {models.map((m) => (
          <option key={m.value} value={m.value} label={m.label} />
        ))}
      </datalist>
      <div className="variants">
        {variants.map((v, i) => (
          <section key={i} className="variant" aria-labelledby={`variant-${i}-h`}>
            <div className="variant-head">
              <h2 id={`variant-${i}-h`}>Variant {i + 1}</h2>
              <span className="spacer" />
              <button type="button" disabled={variants.length >= MAX_VARIANTS} onClick={() => add(v)}>
                Duplicate
              </button>
              <button
                type="button"
                aria-label={`Remove variant ${i + 1}`}
                disabled={variants.length === 1}
                onClick={() => remove(i)}
              >
                Remove
              </button>
            </div>
            <LoadPrompt
              n={i + 1}
              projectId={projectId}
              prompts={prompts}
              onLoad={(messages) => update(i, { ...v, messages })}
            />
            <VariantEditor index={i} variant={v} modelListId={MODEL_LIST_ID} onChange={(next) => update(i, next)} />
            {problems[i] && <p className="muted small">{problems[i]}</p>}
            <VariantResult n={i + 1} state={runs[i] ?? { kind: 'idle' }} entity={entity} project={project} />
            {canWrite && <SavePrompt n={i + 1} variant={v} entity={entity} project={project} />}
          </section>
        ))}
      </div>
      <button
        type="button"
        className="add-variant"
        disabled={variants.length >= MAX_VARIANTS}
        onClick={() => add(emptyVariant(variants[0]?.model))}
      >
        Add variant
      </button>
    </main>
  );
}
