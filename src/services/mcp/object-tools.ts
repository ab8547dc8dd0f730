import { Type } from '@sinclair/typebox';
import type { Ajv } from 'ajv';
import { InvalidRequestError, NotFoundError } from '../../errors/app-error.js';
import { parseRef, RefParseError } from '../../domain/ref-uri.js';
import * as O from '../../schemas/objects.js';
import type { Caller } from '../auth-service.js';
import type { CallQueryService } from '../call-query-service.js';
import type { FeedbackService } from '../feedback-service.js';
import type { ObjectService } from '../object-service.js';
import type { TableService } from '../table-service.js';
import { fitPage, fitValue, MAX_RESULT_CHARS, pageLimit } from './mcp-bounds.js';
import type { McpTool } from './mcp-tool.js';
import { defined, Limit, Offset, ProjectId, requestChecker } from './tool-args.js';

const Digest = Type.Optional(
  Type.String({ minLength: 1, description: 'A version digest, "v<N>" or "latest" (the default).' }),
);

interface ObjView {
  object_id: string;
  digest: string;
  version_index: number;
  val: unknown;
}

export interface ObjectToolServices {
  objects: ObjectService;
  tables: TableService;
  feedback: FeedbackService;
  calls: CallQueryService;
}

export function objectTools(ajv: Ajv, s: ObjectToolServices): McpTool[] {
  const objQuery = requestChecker<O.ObjQueryReq>(ajv, O.ObjQueryReq);

  const readObj = async (caller: Caller, projectId: string, objectId: string, digest: string): Promise<ObjView> => {
    const text = await s.objects.objRead(caller, { project_id: projectId, object_id: objectId, digest });
    return (JSON.parse(text) as { obj: ObjView }).obj;
  };

  /** The table digest a dataset version's `rows` names. */
  const rowsTable = (obj: ObjView): string => {
    const rows = (obj.val as { rows?: unknown } | null)?.rows;
    try {
      if (typeof rows === 'string') {
        const ref = parseRef(rows);
        if (ref.kind === 'table') return ref.digest;
      }
    } catch (error) {
      if (!(error instanceof RefParseError)) throw error;
    }
    throw new InvalidRequestError(`${obj.object_id}:v${obj.version_index} is not a dataset (no rows table ref)`);
  };

  const queryObjects: McpTool = {
    name: 'query_objects',
    title: 'List objects',
    description:
      'Published objects of a project (datasets, models, prompts, scorers, evaluations, ops), their latest ' +
      'versions unless latest_only is false; metadata only: read_object opens one.',
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        base_object_classes: Type.Optional(
          Type.Array(Type.String(), { description: 'e.g. ["Dataset"], ["Model"], ["Evaluation"].' }),
        ),
        object_ids: Type.Optional(Type.Array(Type.String(), { description: 'Only these object names.' })),
        latest_only: Type.Optional(Type.Boolean({ description: 'Latest versions only (default true).' })),
        limit: Limit(),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const limit = pageLimit(a.limit as number | undefined);
      const offset = (a.offset as number | undefined) ?? 0;
      const req = objQuery({
        project_id: a.project_id,
        filter: defined({
          base_object_classes: a.base_object_classes,
          object_ids: a.object_ids,
          latest_only: a.latest_only !== false,
        }),
        sort_by: [{ field: 'created_at', direction: 'desc' }],
        limit: limit + 1,
        offset,
        metadata_only: true,
      });
      const { objs } = JSON.parse(await s.objects.objsQuery(caller, req)) as { objs: Record<string, unknown>[] };
      const rows = objs.map(({ val: _val, ...meta }) => meta);
      const { items, page } = fitPage(rows.slice(0, limit), offset, rows.length > limit);
      return { objects: items, ...page };
    },
  };

  const readObject: McpTool = {
    name: 'read_object',
    title: 'Read an object',
    description: 'One object version with its value (long values shortened to fit).',
    readOnly: true,
    input: Type.Object(
      { project_id: ProjectId, object_id: Type.String({ minLength: 1 }), digest: Digest },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const obj = await readObj(
        caller,
        a.project_id as string,
        a.object_id as string,
        (a.digest as string) ?? 'latest',
      );
      const fitted = fitValue(obj, MAX_RESULT_CHARS - 200);
      return fitted.truncated ? { object: fitted.value, truncated: true } : { object: obj };
    },
  };

  const datasetRows: McpTool = {
    name: 'query_dataset_rows',
    title: 'Read dataset rows',
    description: "A page of a dataset version's rows, with the total row count.",
    readOnly: true,
    input: Type.Object(
      {
        project_id: ProjectId,
        dataset: Type.String({ minLength: 1, description: "The dataset's object id (name)." }),
        digest: Digest,
        limit: Limit(),
        offset: Offset,
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const projectId = a.project_id as string;
      const limit = pageLimit(a.limit as number | undefined);
      const offset = (a.offset as number | undefined) ?? 0;
      const obj = await readObj(caller, projectId, a.dataset as string, (a.digest as string) ?? 'latest');
      const table = rowsTable(obj);
      const { count } = await s.tables.queryStats(caller, { project_id: projectId, digest: table });
      const { rows } = JSON.parse(
        await s.tables.query(caller, { project_id: projectId, digest: table, limit, offset }),
      ) as { rows: unknown[] };
      const { items, page } = fitPage(rows, offset, offset + rows.length < count);
      return {
        dataset: `${obj.object_id}:v${obj.version_index}`,
        digest: obj.digest,
        total_rows: count,
        rows: items,
        ...page,
      };
    },
  };

  const addDatasetRow: McpTool = {
    name: 'add_dataset_row',
    title: 'Add a dataset row',
    description:
      'Appends one row to the latest version of a dataset: a new table and a new dataset version (the old ' +
      'version stays). Needs write access.',
    readOnly: false,
    input: Type.Object(
      {
        project_id: ProjectId,
        dataset: Type.String({ minLength: 1, description: "The dataset's object id (name)." }),
        row: Type.Object({}, { additionalProperties: true, description: 'The row, a JSON object.' }),
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const projectId = a.project_id as string;
      const obj = await readObj(caller, projectId, a.dataset as string, 'latest');
      const table = rowsTable(obj);
      const updated = await s.tables.update(caller, {
        project_id: projectId,
        base_digest: table,
        updates: [{ append: { row: a.row as Record<string, unknown> } }],
      });
      const val = { ...(obj.val as Record<string, unknown>), rows: `weave:///${projectId}/table/${updated.digest}` };
      const created = await s.objects.objCreate(caller, {
        obj: { project_id: projectId, object_id: obj.object_id, val },
      });
      const latest = await readObj(caller, projectId, obj.object_id, created.digest);
      return {
        dataset: `${latest.object_id}:v${latest.version_index}`,
        ref: `weave:///${projectId}/object/${latest.object_id}:${created.digest}`,
        digest: created.digest,
        row_digest: updated.updated_row_digests[0],
      };
    },
  };

  const addFeedback: McpTool = {
    name: 'add_feedback',
    title: 'Add feedback',
    description:
      'Adds feedback to a call: a note (text), a reaction (an emoji) or a custom payload under your own ' +
      'feedback_type. Needs write access.',
    readOnly: false,
    input: Type.Object(
      {
        project_id: ProjectId,
        call_id: Type.String({ minLength: 1 }),
        note: Type.Optional(Type.String({ minLength: 1, description: 'A note (wandb.note.1).' })),
        emoji: Type.Optional(Type.String({ minLength: 1, description: 'A reaction (wandb.reaction.1), e.g. "👍".' })),
        feedback_type: Type.Optional(Type.String({ minLength: 1, description: 'A custom feedback type…' })),
        payload: Type.Optional(
          Type.Object({}, { additionalProperties: true, description: '…with its payload object.' }),
        ),
      },
      { additionalProperties: false },
    ),
    run: async (caller, a) => {
      const projectId = a.project_id as string;
      const kinds = [a.note, a.emoji, a.feedback_type].filter((v) => v !== undefined).length;
      if (kinds !== 1 || (a.feedback_type === undefined) !== (a.payload === undefined))
        throw new InvalidRequestError('Give exactly one of: note, emoji, or feedback_type with payload');
      const { call } = JSON.parse(
        await s.calls.callRead(caller, { project_id: projectId, id: a.call_id as string }),
      ) as { call: unknown };
      if (call === null) throw new NotFoundError(`Call ${String(a.call_id)} not found in ${projectId}`);
      const [feedbackType, payload] =
        a.note !== undefined
          ? ['wandb.note.1', { note: a.note }]
          : a.emoji !== undefined
            ? ['wandb.reaction.1', { emoji: a.emoji }]
            : [a.feedback_type as string, a.payload as Record<string, unknown>];
      const res = await s.feedback.create(caller, {
        project_id: projectId,
        weave_ref: `weave:///${projectId}/call/${String(a.call_id)}`,
        feedback_type: feedbackType,
        payload,
      });
      return { feedback_id: res.id, feedback_type: feedbackType, payload: res.payload, created_at: res.created_at };
    },
  };

  return [queryObjects, readObject, datasetRows, addDatasetRow, addFeedback];
}
