// Generated from the server's /openapi.json by scripts/web-api-types.ts: do not edit.
// `npx tsx scripts/web-api-types.ts` rewrites it; test/unit/web-api-types.test.ts fails when it is stale.

export interface ApiSchemas {
  CallSchema: {
    id: string;
    project_id: string;
    op_name: string;
    display_name: string | null;
    trace_id: string;
    parent_id: string | null;
    thread_id: string | null;
    turn_id: string | null;
    started_at: string;
    attributes: {
      [key: string]: unknown;
    };
    inputs: {
      [key: string]: unknown;
    };
    ended_at: string | null;
    exception: string | null;
    output: unknown;
    summary: {
      [key: string]: unknown;
    };
    wb_user_id: string | null;
    wb_run_id: string | null;
    wb_run_step: number | null;
    wb_run_step_end: number | null;
    deleted_at: string | null;
    storage_size_bytes: number | null;
    total_storage_size_bytes: number | null;
    wb_username: string | null;
    expire_at: string | null;
  };
  ErrorRes: {
    reason: string;
    [key: string]: unknown;
  };
  HTTPValidationError: {
    detail: Array<{
      loc: Array<string>;
      msg: string;
      type: string;
      [key: string]: unknown;
    }>;
  };
  QueryOperand: {
    $literal: unknown;
  } | {
    $getField: string;
  } | {
    $convert: {
      input: ApiSchemas["QueryOperand"];
      to: "double" | "string" | "int" | "bool" | "exists";
    };
  } | {
    $and: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $or: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $not: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $eq: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $gt: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $gte: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $lt: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $lte: Array<ApiSchemas["QueryOperand"]>;
  } | {
    $in: [ApiSchemas["QueryOperand"], Array<ApiSchemas["QueryOperand"]>];
  } | {
    $contains: {
      input: ApiSchemas["QueryOperand"];
      substr: ApiSchemas["QueryOperand"];
      case_insensitive?: true | false | 0 | 1 | "true" | "false";
    };
  } | {
    $containsToken: {
      input: ApiSchemas["QueryOperand"];
      substr: ApiSchemas["QueryOperand"];
      case_insensitive?: true | false | 0 | 1 | "true" | "false";
    };
  };
}

/** Each path (OpenAPI template) and method: the JSON body it takes and its 200 answer. */
export interface ApiPaths {
  "/agents/agent-versions/query": {
    post: {
      body: {
        project_id: string;
        agent_name: string;
        sort_by?: Array<{
          field: string;
          direction?: "asc" | "desc";
        }> | null;
        include_costs?: true | false | 0 | 1 | "true" | "false";
        limit?: number | string;
        offset?: number | string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/conversations/chat": {
    post: {
      body: {
        project_id: string;
        conversation_id: string;
        include_feedback?: true | false | 0 | 1 | "true" | "false";
        include_model_tool_calls?: true | false | 0 | 1 | "true" | "false";
        limit?: number | string;
        offset?: number | string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/conversations/spans": {
    post: {
      body: {
        project_id: string;
        conversation_ids?: Array<string>;
        started_after?: string | null;
        started_before?: string | null;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/otel/v1/traces": {
    post: {
      body: {
        resourceSpans?: Array<Record<string, unknown>>;
      };
      response: {
        partial_success?: {
          rejected_spans: number;
          error_message: string;
        } | null;
      };
    };
  };
  "/agents/query": {
    post: {
      body: {
        project_id: string;
        filters?: {
          agent_name?: string | null;
        } | null;
        sort_by?: Array<{
          field: string;
          direction?: "asc" | "desc";
        }> | null;
        include_costs?: true | false | 0 | 1 | "true" | "false";
        limit?: number | string;
        offset?: number | string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/search": {
    post: {
      body: {
        project_id: string;
        query?: string;
        trace_id?: string | null;
        conversation_id?: string | null;
        agent_name?: string | null;
        provider_name?: string | null;
        request_model?: string | null;
        roles?: Array<"" | "user" | "assistant" | "system" | "tool" | "tool_call" | "tool_result"> | null;
        started_after?: string | number | null;
        started_before?: string | number | null;
        truncate_content?: true | false | 0 | 1 | "true" | "false";
        limit?: number | string;
        offset?: number | string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/spans/custom-attrs/schema": {
    post: {
      body: {
        project_id: string;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        started_after?: string | number | null;
        started_before?: string | number | null;
        limit?: number | string;
        offset?: number | string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/spans/diagnostics": {
    post: {
      body: {
        project_id: string;
        trace_id: string;
        span_id: string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/spans/query": {
    post: {
      body: {
        project_id: string;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        started_after?: string | number | null;
        started_before?: string | number | null;
        group_by?: Array<{
          source?: "field" | "column" | "custom_attrs_string" | "custom_attrs_int" | "custom_attrs_float" | "custom_attrs_bool";
          key: string;
          alias?: string | null;
        }> | null;
        measures?: Array<{
          [key: string]: unknown;
        }>;
        group_filters?: Array<{
          [key: string]: unknown;
        }>;
        group_distributions?: Array<{
          [key: string]: unknown;
        }>;
        signal_filters?: {
          [key: string]: unknown;
        } | null;
        custom_attr_columns?: Array<{
          source?: "field" | "column" | "derived" | "custom_attrs_string" | "custom_attrs_int" | "custom_attrs_float" | "custom_attrs_bool";
          key: string;
        }>;
        include_details?: true | false | 0 | 1 | "true" | "false";
        include_costs?: true | false | 0 | 1 | "true" | "false";
        sort_by?: Array<{
          field: string;
          direction?: "asc" | "desc";
        }> | null;
        limit?: number | string;
        offset?: number | string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/spans/stats": {
    post: {
      body: {
        project_id: string;
        start: string | number;
        end?: string | number | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        granularity?: number | string | null;
        timezone?: string;
        group_by?: Array<{
          source?: "field" | "column" | "custom_attrs_string" | "custom_attrs_int" | "custom_attrs_float" | "custom_attrs_bool";
          key: string;
          alias?: string | null;
        }>;
        metrics?: Array<{
          alias: string;
          value_type: "datetime" | "number" | "boolean" | "string";
          value: {
            source?: "field" | "column" | "derived" | "custom_attrs_string" | "custom_attrs_int" | "custom_attrs_float" | "custom_attrs_bool";
            key: string;
          };
          aggregations?: Array<"sum" | "avg" | "min" | "max" | "count" | "count_distinct" | "count_true" | "count_false">;
          percentiles?: Array<number>;
        }>;
        group_limit?: number | string;
        bucket_by?: {
          [key: string]: unknown;
        } | null;
        group_filters?: Array<{
          [key: string]: unknown;
        }>;
        signal_filters?: {
          [key: string]: unknown;
        } | null;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/agents/traces/chat": {
    post: {
      body: {
        project_id: string;
        trace_id: string;
        include_feedback?: true | false | 0 | 1 | "true" | "false";
        include_model_tool_calls?: true | false | 0 | 1 | "true" | "false";
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/aliases": {
    get: {
      body: never;
      response: {
        aliases: Array<string>;
      };
    };
  };
  "/annotation_queues": {
    post: {
      body: {
        project_id: string;
        name: string;
        description?: string | null;
        scorer_refs: Array<string>;
      };
      response: {
        id: string;
      };
    };
  };
  "/annotation_queues/{queue_id}": {
    delete: {
      body: never;
      response: {
        queue: {
          id: string;
          project_id: string;
          name: string;
          description: string;
          scorer_refs: Array<string>;
          created_at: string;
          created_by: string;
          updated_at: string;
          deleted_at: string | null;
        };
      };
    };
    get: {
      body: never;
      response: {
        queue: {
          id: string;
          project_id: string;
          name: string;
          description: string;
          scorer_refs: Array<string>;
          created_at: string;
          created_by: string;
          updated_at: string;
          deleted_at: string | null;
        };
      };
    };
    put: {
      body: {
        project_id: string;
        name?: string | null;
        description?: string | null;
        scorer_refs?: Array<string> | null;
      };
      response: {
        queue: {
          id: string;
          project_id: string;
          name: string;
          description: string;
          scorer_refs: Array<string>;
          created_at: string;
          created_by: string;
          updated_at: string;
          deleted_at: string | null;
        };
      };
    };
  };
  "/annotation_queues/{queue_id}/items": {
    post: {
      body: {
        project_id: string;
        call_ids: Array<string>;
        display_fields: Array<string>;
      };
      response: {
        added_count: number;
        duplicates: number;
      };
    };
  };
  "/annotation_queues/{queue_id}/items/{item_id}/progress": {
    post: {
      body: {
        project_id: string;
        annotation_state: string;
      };
      response: {
        item: {
          id: string;
          project_id: string;
          queue_id: string;
          call_id: string;
          call_started_at: string;
          call_ended_at: string | null;
          call_op_name: string;
          call_trace_id: string;
          display_fields: Array<string>;
          added_by: string | null;
          annotation_state: string;
          annotator_user_id: string | null;
          created_at: string;
          created_by: string;
          updated_at: string;
          deleted_at: string | null;
          position_in_queue: number | null;
        };
      };
    };
  };
  "/annotation_queues/{queue_id}/items/query": {
    post: {
      body: {
        project_id: string;
        filter?: {
          id?: string | null;
          call_id?: string | null;
          call_op_name?: string | null;
          call_trace_id?: string | null;
          added_by?: string | null;
          annotation_states?: Array<string> | null;
        } | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        limit?: number | string | null;
        offset?: number | string | null;
        include_position?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: {
        items: Array<{
          id: string;
          project_id: string;
          queue_id: string;
          call_id: string;
          call_started_at: string;
          call_ended_at: string | null;
          call_op_name: string;
          call_trace_id: string;
          display_fields: Array<string>;
          added_by: string | null;
          annotation_state: string;
          annotator_user_id: string | null;
          created_at: string;
          created_by: string;
          updated_at: string;
          deleted_at: string | null;
          position_in_queue: number | null;
        }>;
      };
    };
  };
  "/annotation_queues/query": {
    post: {
      body: {
        project_id: string;
        name?: string | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        limit?: number | string | null;
        offset?: number | string | null;
      };
      response: unknown;
    };
  };
  "/annotation_queues/stats": {
    post: {
      body: {
        project_id: string;
        queue_ids: Array<string>;
      };
      response: {
        stats: Array<{
          queue_id: string;
          total_items: number;
          completed_items: number;
        }>;
      };
    };
  };
  "/audit": {
    get: {
      body: never;
      response: {
        entries: Array<{
          id: string;
          at: string;
          entity: string;
          user_id?: string | null;
          username?: string | null;
          key_id?: string | null;
          action: string;
          target?: string | null;
          details: {
            [key: string]: unknown;
          };
        }>;
        next_before?: string | null;
      };
    };
  };
  "/auth/session": {
    delete: {
      body: never;
      response: unknown;
    };
    get: {
      body: never;
      response: {
        user: {
          id: string;
          username: string;
        };
        entities: Array<string>;
        writable_entities: Array<string>;
        instance_admin: boolean;
      };
    };
    post: {
      body: {
        api_key: string;
      };
      response: {
        user: {
          id: string;
          username: string;
        };
        entities: Array<string>;
        writable_entities: Array<string>;
        instance_admin: boolean;
      };
    };
  };
  "/call/end": {
    post: {
      body: {
        end: {
          project_id: string;
          id: string;
          ended_at: string | number;
          exception?: string | null;
          output?: unknown;
          summary: {
            usage?: {
              [key: string]: {
                prompt_tokens?: number | string | null;
                input_tokens?: number | string | null;
                completion_tokens?: number | string | null;
                output_tokens?: number | string | null;
                requests?: number | string | null;
                total_tokens?: number | string | null;
                [key: string]: unknown;
              };
            };
            status_counts?: {
              success?: number;
              error?: number;
              running?: number;
              descendant_error?: number;
            };
            [key: string]: unknown;
          };
          wb_run_step_end?: number | string | null;
        };
      };
      response: Record<string, unknown>;
    };
  };
  "/call/read": {
    post: {
      body: {
        project_id: string;
        id: string;
        include_costs?: true | false | 0 | 1 | "true" | "false" | null;
        include_feedback?: true | false | 0 | 1 | "true" | "false" | null;
        include_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        include_total_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: {
        call: ApiSchemas["CallSchema"] | null;
      };
    };
  };
  "/call/start": {
    post: {
      body: {
        start: {
          project_id: string;
          id?: string | null;
          op_name: string;
          display_name?: string | null;
          trace_id?: string | null;
          parent_id?: string | null;
          thread_id?: string | null;
          turn_id?: string | null;
          started_at: string | number;
          attributes: {
            [key: string]: unknown;
          };
          inputs: {
            [key: string]: unknown;
          };
          otel_dump?: {
            [key: string]: unknown;
          } | null;
          wb_user_id?: string | null;
          wb_run_id?: string | null;
          wb_run_step?: number | string | null;
        };
      };
      response: {
        id: string;
        trace_id: string;
      };
    };
  };
  "/call/update": {
    post: {
      body: {
        project_id: string;
        call_id: string;
        display_name?: string | null;
        wb_user_id?: string | null;
      };
      response: Record<string, unknown>;
    };
  };
  "/call/upsert_batch": {
    post: {
      body: {
        batch: Array<{
          mode?: string;
          req: {
            [key: string]: unknown;
          };
          [key: string]: unknown;
        }>;
      };
      response: {
        res: Array<{
          id: string;
          trace_id: string;
        } | Record<string, unknown>>;
      };
    };
  };
  "/calls/delete": {
    post: {
      body: {
        project_id: string;
        call_ids: Array<string>;
        wb_user_id?: string | null;
      };
      response: {
        num_deleted: number;
      };
    };
  };
  "/calls/export": {
    post: {
      body: {
        project_id: string;
        filter?: {
          op_names?: Array<string> | null;
          input_refs?: Array<string> | null;
          output_refs?: Array<string> | null;
          parent_ids?: Array<string> | null;
          trace_ids?: Array<string> | null;
          call_ids?: Array<string> | null;
          thread_ids?: Array<string> | null;
          turn_ids?: Array<string> | null;
          trace_roots_only?: true | false | 0 | 1 | "true" | "false" | null;
          wb_user_ids?: Array<string> | null;
          wb_run_ids?: Array<string> | null;
        } | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        format?: "jsonl" | "csv";
        include_feedback?: true | false | 0 | 1 | "true" | "false" | null;
        include_costs?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: unknown;
    };
  };
  "/calls/live_tail": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/calls/query": {
    post: {
      body: {
        project_id: string;
        filter?: {
          op_names?: Array<string> | null;
          input_refs?: Array<string> | null;
          output_refs?: Array<string> | null;
          parent_ids?: Array<string> | null;
          trace_ids?: Array<string> | null;
          call_ids?: Array<string> | null;
          thread_ids?: Array<string> | null;
          turn_ids?: Array<string> | null;
          trace_roots_only?: true | false | 0 | 1 | "true" | "false" | null;
          wb_user_ids?: Array<string> | null;
          wb_run_ids?: Array<string> | null;
        } | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        limit?: number | string | null;
        offset?: number | string | null;
        columns?: Array<string> | null;
        expand_columns?: Array<string> | null;
        return_expanded_column_values?: true | false | 0 | 1 | "true" | "false" | null;
        include_costs?: true | false | 0 | 1 | "true" | "false" | null;
        include_feedback?: true | false | 0 | 1 | "true" | "false" | null;
        include_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        include_total_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        include_usernames?: true | false | 0 | 1 | "true" | "false" | null;
        latest_only?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: {
        calls: Array<ApiSchemas["CallSchema"]>;
      };
    };
  };
  "/calls/query_stats": {
    post: {
      body: {
        project_id: string;
        filter?: {
          op_names?: Array<string> | null;
          input_refs?: Array<string> | null;
          output_refs?: Array<string> | null;
          parent_ids?: Array<string> | null;
          trace_ids?: Array<string> | null;
          call_ids?: Array<string> | null;
          thread_ids?: Array<string> | null;
          turn_ids?: Array<string> | null;
          trace_roots_only?: true | false | 0 | 1 | "true" | "false" | null;
          wb_user_ids?: Array<string> | null;
          wb_run_ids?: Array<string> | null;
        } | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        limit?: number | string | null;
        include_total_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        expand_columns?: Array<string> | null;
      };
      response: {
        count: number;
        total_storage_size_bytes: number | null;
        has_more: boolean | null;
      };
    };
  };
  "/calls/score": {
    post: {
      body: {
        project_id: string;
        call_ids: Array<string>;
        scorer_refs: Array<string>;
        wb_user_id?: string | null;
      };
      response: Record<string, unknown>;
    };
  };
  "/calls/stats": {
    post: {
      body: {
        project_id: string;
        start: string | number;
        end?: string | number | null;
        granularity?: number | string | null;
        usage_metrics?: Array<{
          metric: "input_tokens" | "output_tokens" | "total_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens" | "input_cost" | "output_cost" | "total_cost";
          aggregations?: Array<"sum" | "avg" | "min" | "max" | "count" | "count_true" | "count_false"> | null;
          percentiles?: Array<number> | null;
        }> | null;
        call_metrics?: Array<{
          metric: "latency_ms" | "call_count" | "error_count";
          aggregations?: Array<"sum" | "avg" | "min" | "max" | "count" | "count_true" | "count_false"> | null;
          percentiles?: Array<number> | null;
        }> | null;
        filter?: {
          op_names?: Array<string> | null;
          input_refs?: Array<string> | null;
          output_refs?: Array<string> | null;
          parent_ids?: Array<string> | null;
          trace_ids?: Array<string> | null;
          call_ids?: Array<string> | null;
          thread_ids?: Array<string> | null;
          turn_ids?: Array<string> | null;
          trace_roots_only?: true | false | 0 | 1 | "true" | "false" | null;
          wb_user_ids?: Array<string> | null;
          wb_run_ids?: Array<string> | null;
        } | null;
        timezone?: string;
        group_by?: Array<"op" | "status" | "model"> | null;
      };
      response: {
        start: string;
        end: string;
        granularity: number;
        timezone: string;
        usage_buckets: Array<{
          [key: string]: unknown;
        }>;
        call_buckets: Array<{
          [key: string]: unknown;
        }>;
      };
    };
  };
  "/calls/stream_query": {
    post: {
      body: {
        project_id: string;
        filter?: {
          op_names?: Array<string> | null;
          input_refs?: Array<string> | null;
          output_refs?: Array<string> | null;
          parent_ids?: Array<string> | null;
          trace_ids?: Array<string> | null;
          call_ids?: Array<string> | null;
          thread_ids?: Array<string> | null;
          turn_ids?: Array<string> | null;
          trace_roots_only?: true | false | 0 | 1 | "true" | "false" | null;
          wb_user_ids?: Array<string> | null;
          wb_run_ids?: Array<string> | null;
        } | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        limit?: number | string | null;
        offset?: number | string | null;
        columns?: Array<string> | null;
        expand_columns?: Array<string> | null;
        return_expanded_column_values?: true | false | 0 | 1 | "true" | "false" | null;
        include_costs?: true | false | 0 | 1 | "true" | "false" | null;
        include_feedback?: true | false | 0 | 1 | "true" | "false" | null;
        include_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        include_total_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        include_usernames?: true | false | 0 | 1 | "true" | "false" | null;
        latest_only?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: unknown;
    };
  };
  "/calls/usage": {
    post: {
      body: {
        project_id: string;
        call_ids: Array<string>;
        include_costs?: true | false | 0 | 1 | "true" | "false";
        limit?: number | string;
      };
      response: {
        call_usage: {
          [key: string]: {
            [key: string]: {
              requests: number;
              prompt_tokens: number;
              completion_tokens: number;
              total_tokens: number;
              cache_read_input_tokens: number;
              cache_creation_input_tokens: number;
              prompt_tokens_total_cost: number | null;
              completion_tokens_total_cost: number | null;
              cache_read_input_tokens_total_cost: number | null;
              cache_creation_input_tokens_total_cost: number | null;
            };
          };
        };
        unfinished_call_ids: Array<string>;
        unpriced_models?: Array<string>;
      };
    };
  };
  "/completions/create": {
    post: {
      body: {
        project_id: string;
        inputs: {
          model: string;
          messages?: Array<unknown>;
          prompt?: string | null;
          template_vars?: {
            [key: string]: unknown;
          } | null;
          [key: string]: unknown;
        };
        wb_user_id?: string | null;
        track_llm_call?: boolean | null;
      };
      response: {
        response: {
          [key: string]: unknown;
        };
        weave_call_id?: string | null;
      };
    };
  };
  "/completions/create_stream": {
    post: {
      body: {
        project_id: string;
        inputs: {
          model: string;
          messages?: Array<unknown>;
          prompt?: string | null;
          template_vars?: {
            [key: string]: unknown;
          } | null;
          [key: string]: unknown;
        };
        wb_user_id?: string | null;
        track_llm_call?: boolean | null;
      };
      response: unknown;
    };
  };
  "/cost/create": {
    post: {
      body: {
        project_id: string;
        costs: {
          [key: string]: {
            prompt_token_cost: number;
            completion_token_cost: number;
            cache_read_input_token_cost?: number;
            cache_creation_input_token_cost?: number;
            prompt_token_cost_unit?: string;
            completion_token_cost_unit?: string;
            effective_date?: string | number | null;
            provider_id?: string | null;
          };
        };
        wb_user_id?: string | null;
      };
      response: {
        ids: Array<[string, string]>;
      };
    };
  };
  "/cost/purge": {
    post: {
      body: {
        project_id: string;
        query: {
          $expr: ApiSchemas["QueryOperand"];
        };
      };
      response: Record<string, unknown>;
    };
  };
  "/cost/query": {
    post: {
      body: {
        project_id: string;
        fields?: Array<string> | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        limit?: number | string | null;
        offset?: number | string | null;
      };
      response: {
        results: Array<{
          [key: string]: unknown;
        }>;
      };
    };
  };
  "/evaluations/evaluate_model": {
    post: {
      body: {
        project_id: string;
        evaluation_ref: string;
        model_ref: string;
        wb_user_id?: string | null;
      };
      response: {
        call_id: string;
      };
    };
  };
  "/evaluations/status": {
    post: {
      body: {
        project_id: string;
        call_id: string;
      };
      response: {
        status: {
          code: "not_found";
        } | {
          code: "running";
          completed_rows: number;
          total_rows: number;
        } | {
          code: "failed";
          error: string | null;
        } | {
          code: "complete";
          output: {
            [key: string]: unknown;
          };
        };
      };
    };
  };
  "/feedback/batch/create": {
    post: {
      body: {
        batch: Array<{
          id?: string | null;
          project_id: string;
          weave_ref: string;
          creator?: string | null;
          feedback_type: string;
          payload: {
            [key: string]: unknown;
          };
          annotation_ref?: string | null;
          runnable_ref?: string | null;
          call_ref?: string | null;
          trigger_ref?: string | null;
          queue_id?: string | null;
          scorer_tags?: Array<string>;
          scorer_tag_reasons?: {
            [key: string]: string;
          };
          scorer_tag_confidences?: {
            [key: string]: number;
          };
          scorer_ratings?: {
            [key: string]: number;
          };
          scorer_rating_reasons?: {
            [key: string]: string;
          };
          scorer_rating_confidences?: {
            [key: string]: number;
          };
          span_agent_name?: string;
          span_agent_version?: string;
          span_conversation_id?: string;
          span_trace_id?: string;
          scorer_trace_id?: string;
          span_status_code?: string;
          wb_user_id?: string | null;
        }>;
      };
      response: {
        res: Array<{
          id: string;
          created_at: string;
          wb_user_id: string;
          payload: {
            [key: string]: unknown;
          };
        }>;
      };
    };
  };
  "/feedback/create": {
    post: {
      body: {
        id?: string | null;
        project_id: string;
        weave_ref: string;
        creator?: string | null;
        feedback_type: string;
        payload: {
          [key: string]: unknown;
        };
        annotation_ref?: string | null;
        runnable_ref?: string | null;
        call_ref?: string | null;
        trigger_ref?: string | null;
        queue_id?: string | null;
        scorer_tags?: Array<string>;
        scorer_tag_reasons?: {
          [key: string]: string;
        };
        scorer_tag_confidences?: {
          [key: string]: number;
        };
        scorer_ratings?: {
          [key: string]: number;
        };
        scorer_rating_reasons?: {
          [key: string]: string;
        };
        scorer_rating_confidences?: {
          [key: string]: number;
        };
        span_agent_name?: string;
        span_agent_version?: string;
        span_conversation_id?: string;
        span_trace_id?: string;
        scorer_trace_id?: string;
        span_status_code?: string;
        wb_user_id?: string | null;
      };
      response: {
        id: string;
        created_at: string;
        wb_user_id: string;
        payload: {
          [key: string]: unknown;
        };
      };
    };
  };
  "/feedback/payload_schema": {
    post: {
      body: {
        project_id: string;
        start: string | number;
        end?: string | number | null;
        feedback_type?: string | null;
        trigger_ref?: string | null;
        sample_limit?: number;
      };
      response: {
        paths: Array<{
          json_path: string;
          value_type: string;
        }>;
      };
    };
  };
  "/feedback/purge": {
    post: {
      body: {
        project_id: string;
        query: {
          $expr: ApiSchemas["QueryOperand"];
        };
      };
      response: Record<string, unknown>;
    };
  };
  "/feedback/query": {
    post: {
      body: {
        project_id: string;
        fields?: Array<string> | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        limit?: number | string | null;
        offset?: number | string | null;
      };
      response: {
        result: Array<{
          [key: string]: unknown;
        }>;
        total_count: number;
      };
    };
  };
  "/feedback/replace": {
    post: {
      body: {
        id?: string | null;
        project_id: string;
        weave_ref: string;
        creator?: string | null;
        feedback_type: string;
        payload: {
          [key: string]: unknown;
        };
        annotation_ref?: string | null;
        runnable_ref?: string | null;
        call_ref?: string | null;
        trigger_ref?: string | null;
        queue_id?: string | null;
        scorer_tags?: Array<string>;
        scorer_tag_reasons?: {
          [key: string]: string;
        };
        scorer_tag_confidences?: {
          [key: string]: number;
        };
        scorer_ratings?: {
          [key: string]: number;
        };
        scorer_rating_reasons?: {
          [key: string]: string;
        };
        scorer_rating_confidences?: {
          [key: string]: number;
        };
        span_agent_name?: string;
        span_agent_version?: string;
        span_conversation_id?: string;
        span_trace_id?: string;
        scorer_trace_id?: string;
        span_status_code?: string;
        wb_user_id?: string | null;
        feedback_id: string;
      };
      response: {
        id: string;
        created_at: string;
        wb_user_id: string;
        payload: {
          [key: string]: unknown;
        };
      };
    };
  };
  "/feedback/stats": {
    post: {
      body: {
        project_id: string;
        start: string | number;
        end?: string | number | null;
        feedback_type?: string | null;
        trigger_ref?: string | null;
        granularity?: number | string | null;
        timezone?: string;
        metrics?: Array<{
          json_path: string;
          value_type?: "numeric" | "boolean" | "categorical";
          aggregations?: Array<"sum" | "avg" | "min" | "max" | "count" | "count_true" | "count_false">;
          percentiles?: Array<number>;
        }>;
      };
      response: unknown;
    };
  };
  "/file/content": {
    post: {
      body: {
        project_id: string;
        digest: string;
      };
      response: unknown;
    };
  };
  "/file/create": {
    post: {
      body: never;
      response: {
        digest: string;
      };
    };
  };
  "/files/query_stats": {
    post: {
      body: {
        project_id: string;
      };
      response: {
        total_size_bytes: number;
      };
    };
  };
  "/geolocate": {
    get: {
      body: never;
      response: {
        ip: string;
        location: {
          [key: string]: unknown;
        } | null;
        allowed: boolean;
      };
    };
  };
  "/health": {
    get: {
      body: never;
      response: {
        status: string;
        reasons?: Array<string>;
      };
    };
  };
  "/image/create": {
    post: {
      body: {
        project_id: string;
        inputs: {
          model: string;
          prompt: string;
          n?: number | string | null;
        };
        wb_user_id?: string | null;
        track_llm_call?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: {
        response: {
          [key: string]: unknown;
        };
        weave_call_id: string | null;
      };
    };
  };
  "/inference/{partner}/v2/hardware": {
    get: {
      body: never;
      response: {
        hardware: Array<{
          id: string;
          name: string;
          type: string;
          pricing: {
            cents_per_million_input_tokens: number;
            cents_per_million_output_tokens: number;
          };
          specs: {
            [key: string]: unknown;
          };
        }>;
      };
    };
  };
  "/inference/analysis/{partner}/models": {
    get: {
      body: never;
      response: {
        data: Array<{
          id: string;
          name?: string;
          created?: number;
          input_modalities?: Array<string>;
          output_modalities?: Array<string>;
          quantization?: string;
          context_length?: number;
          max_output_length?: number;
          pricing?: {
            [key: string]: string;
          };
          supported_sampling_parameters?: Array<string>;
          supported_features?: Array<string>;
          datacenters?: Array<{
            country_code: string;
          }>;
          deprecation_date?: string;
          [key: string]: unknown;
        }>;
      };
    };
  };
  "/inference/router/{partner}/models": {
    get: {
      body: never;
      response: {
        data: Array<{
          id: string;
          name?: string;
          created?: number;
          input_modalities?: Array<string>;
          output_modalities?: Array<string>;
          quantization?: string;
          context_length?: number;
          max_output_length?: number;
          pricing?: {
            [key: string]: string;
          };
          supported_sampling_parameters?: Array<string>;
          supported_features?: Array<string>;
          datacenters?: Array<{
            country_code: string;
          }>;
          deprecation_date?: string;
          [key: string]: unknown;
        }>;
      };
    };
  };
  "/keys/create": {
    post: {
      body: {
        entity: string;
        username?: string;
        entity_admin?: boolean;
        role?: "admin" | "member" | "viewer";
        admin?: boolean;
      };
      response: {
        id: string;
        key: string;
        prefix: string;
        username: string;
        entity: string;
        entity_admin: boolean;
        role: "admin" | "member" | "viewer";
        admin: boolean;
      };
    };
  };
  "/keys/query": {
    post: {
      body: {
        entity?: string;
      };
      response: {
        keys: Array<{
          id: string;
          prefix: string;
          username: string;
          admin: boolean;
          created_at: string;
          revoked_at?: string | null;
        }>;
      };
    };
  };
  "/keys/revoke": {
    post: {
      body: {
        entity: string;
        id: string;
      };
      response: {
        id: string;
        prefix: string;
        username: string;
        admin: boolean;
        created_at: string;
        revoked_at?: string | null;
      };
    };
  };
  "/memberships/query": {
    post: {
      body: {
        entity: string;
      };
      response: {
        members: Array<{
          username: string;
          role: "admin" | "member" | "viewer";
        }>;
      };
    };
  };
  "/memberships/update": {
    post: {
      body: {
        entity: string;
        username: string;
        role: "admin" | "member" | "viewer";
      };
      response: {
        entity: string;
        username: string;
        role: "admin" | "member" | "viewer";
        previous_role: "admin" | "member" | "viewer";
      };
    };
  };
  "/obj/create": {
    post: {
      body: {
        obj: {
          project_id: string;
          object_id: string;
          val: unknown;
          builtin_object_class?: string | null;
          set_base_object_class?: string | null;
          expected_digest?: string | null;
          wb_user_id?: string | null;
        };
      };
      response: {
        digest: string;
        object_id: string;
      };
    };
  };
  "/obj/delete": {
    post: {
      body: {
        project_id: string;
        object_id: string;
        digests?: Array<string> | null;
      };
      response: {
        num_deleted: number;
        deleted_versions: Array<{
          digest: string;
          base_object_class: string | null;
          leaf_object_class: string | null;
        }>;
      };
    };
  };
  "/obj/read": {
    post: {
      body: {
        project_id: string;
        object_id: string;
        digest: string;
        metadata_only?: true | false | 0 | 1 | "true" | "false";
        include_tags_and_aliases?: true | false | 0 | 1 | "true" | "false";
      };
      response: {
        obj: {
          project_id: string;
          object_id: string;
          created_at: string;
          deleted_at: string | null;
          digest: string;
          version_index: number;
          is_latest: number;
          kind: string;
          base_object_class: string | null;
          leaf_object_class: string | null;
          val: unknown;
          wb_user_id: string | null;
          size_bytes: number | null;
          tags: Array<string> | null;
          aliases: Array<string> | null;
        };
      };
    };
  };
  "/objs/{object_id}/aliases": {
    put: {
      body: {
        project_id: string;
        digest: string;
        aliases: Array<string>;
      };
      response: Record<string, unknown>;
    };
  };
  "/objs/{object_id}/aliases/remove": {
    post: {
      body: {
        project_id: string;
        aliases: Array<string>;
      };
      response: Record<string, unknown>;
    };
  };
  "/objs/{object_id}/versions/{digest}/tags": {
    put: {
      body: {
        project_id: string;
        tags: Array<string>;
      };
      response: Record<string, unknown>;
    };
  };
  "/objs/{object_id}/versions/{digest}/tags/remove": {
    post: {
      body: {
        project_id: string;
        tags: Array<string>;
      };
      response: Record<string, unknown>;
    };
  };
  "/objs/query": {
    post: {
      body: {
        project_id: string;
        filter?: {
          base_object_classes?: Array<string> | null;
          exclude_base_object_classes?: Array<string> | null;
          leaf_object_classes?: Array<string> | null;
          object_ids?: Array<string> | null;
          is_op?: true | false | 0 | 1 | "true" | "false" | null;
          latest_only?: true | false | 0 | 1 | "true" | "false" | null;
          tags?: Array<string> | null;
          aliases?: Array<string> | null;
        } | null;
        limit?: number | string | null;
        offset?: number | string | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
        metadata_only?: true | false | 0 | 1 | "true" | "false" | null;
        include_storage_size?: true | false | 0 | 1 | "true" | "false" | null;
        include_tags_and_aliases?: true | false | 0 | 1 | "true" | "false" | null;
      };
      response: {
        objs: Array<{
          project_id: string;
          object_id: string;
          created_at: string;
          deleted_at: string | null;
          digest: string;
          version_index: number;
          is_latest: number;
          kind: string;
          base_object_class: string | null;
          leaf_object_class: string | null;
          val: unknown;
          wb_user_id: string | null;
          size_bytes: number | null;
          tags: Array<string> | null;
          aliases: Array<string> | null;
        }>;
      };
    };
  };
  "/otel/v1/genai/span/start": {
    post: {
      body: {
        project_id: string;
        trace_id: string;
        span_id: string;
        parent_span_id?: string;
        span_name?: string;
        operation_name?: string;
        agent_name?: string;
        request_model?: string;
        started_at?: string;
      };
      response: {
        [key: string]: unknown;
      };
    };
  };
  "/otel/v1/traces": {
    post: {
      body: {
        resourceSpans?: Array<Record<string, unknown>>;
      };
      response: {
        partial_success?: {
          rejected_spans: number;
          error_message: string;
        } | null;
      };
    };
  };
  "/projects": {
    get: {
      body: never;
      response: {
        projects: Array<{
          project_id: string;
          entity: string;
          name: string;
          created_at?: string | null;
          last_call_at?: string | null;
          call_count?: number | null;
        }>;
      };
    };
  };
  "/projects/{entity}/{project}": {
    delete: {
      body: never;
      response: {
        project_id: string;
        deleted: {
          [key: string]: number;
        };
        deleted_rows: number;
        remaining_rows: number;
        elapsed_ms: number;
      };
    };
  };
  "/projects/{entity}/{project}/alerts": {
    get: {
      body: never;
      response: {
        alerts: Array<{
          alert_id: string;
          active: boolean;
          state: "ok" | "firing";
          value: number | null;
          muted: boolean;
          muted_until: string | null;
          changed_at: string;
          evaluated_at: string | null;
          spec_error: string | null;
          last_fired_at: string | null;
          op_scope: Array<string>;
          spec: {
            [key: string]: unknown;
          };
        }>;
      };
    };
  };
  "/projects/{entity}/{project}/alerts/{alert_id}/history": {
    get: {
      body: never;
      response: {
        alert: {
          alert_id: string;
          active: boolean;
          state: "ok" | "firing";
          value: number | null;
          muted: boolean;
          muted_until: string | null;
          changed_at: string;
          evaluated_at: string | null;
          spec_error: string | null;
          last_fired_at: string | null;
          op_scope: Array<string>;
          spec: {
            [key: string]: unknown;
          };
        };
        events: Array<{
          event_id: string;
          state: "firing" | "resolved";
          at: string;
          event: {
            [key: string]: unknown;
          };
          deliveries: Array<{
            target: number;
            url: string;
            format: string;
            status: "pending" | "sent" | "failed";
            attempts: number;
            last_error: string | null;
            sent_at: string | null;
            idempotency_key: string;
          }>;
        }>;
      };
    };
  };
  "/projects/{entity}/{project}/alerts/{alert_id}/mute": {
    put: {
      body: {
        muted: boolean;
        until?: string | null;
      };
      response: {
        alert_id: string;
        muted: boolean;
        muted_until: string | null;
      };
    };
  };
  "/projects/{entity}/{project}/export": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/projects/{entity}/{project}/import": {
    post: {
      body: never;
      response: {
        project_id: string;
        imported: {
          [key: string]: number;
        };
        imported_rows: number;
      };
    };
  };
  "/projects/{entity}/{project}/redaction": {
    get: {
      body: never;
      response: {
        project_id: string;
        kinds: Array<string>;
        redacted: {
          [key: string]: number;
        };
      };
    };
  };
  "/projects/{entity}/{project}/retention": {
    delete: {
      body: never;
      response: {
        project_id: string;
        keep_days: number | null;
        updated_by?: string;
        updated_at?: string;
        next_run_at?: string;
        last_run?: {
          at: string;
          cutoff: string;
          deleted_calls: number;
        } | null;
        would_delete?: {
          calls: number;
          feedback: number;
          annotation_queue_items: number;
          annotation_item_progress: number;
        };
      };
    };
    get: {
      body: never;
      response: {
        project_id: string;
        keep_days: number | null;
        updated_by?: string;
        updated_at?: string;
        next_run_at?: string;
        last_run?: {
          at: string;
          cutoff: string;
          deleted_calls: number;
        } | null;
        would_delete?: {
          calls: number;
          feedback: number;
          annotation_queue_items: number;
          annotation_item_progress: number;
        };
      };
    };
    put: {
      body: {
        keep_days: number;
      };
      response: {
        project_id: string;
        keep_days: number | null;
        updated_by?: string;
        updated_at?: string;
        next_run_at?: string;
        last_run?: {
          at: string;
          cutoff: string;
          deleted_calls: number;
        } | null;
        would_delete?: {
          calls: number;
          feedback: number;
          annotation_queue_items: number;
          annotation_item_progress: number;
        };
      };
    };
  };
  "/projects/{entity}/{project}/retention/apply": {
    post: {
      body: {
        dry_run?: boolean;
        keep_days?: number;
      };
      response: {
        project_id: string;
        dry_run: boolean;
        keep_days: number;
        cutoff: string;
        would_delete: {
          calls: number;
          feedback: number;
          annotation_queue_items: number;
          annotation_item_progress: number;
        };
        job_id?: string;
      };
    };
  };
  "/projects/{entity}/{project}/retention/jobs/{job_id}": {
    get: {
      body: never;
      response: {
        id: string;
        status: string;
        attempts: number;
        created_at: string;
        started_at: string | null;
        finished_at: string | null;
        error_message: string | null;
      };
    };
  };
  "/projects/{entity}/{project}/usage": {
    get: {
      body: never;
      response: {
        project_id: string;
        rows: {
          [key: string]: number;
        };
        total_rows: number;
      };
    };
  };
  "/refs/read_batch": {
    post: {
      body: {
        refs: Array<string>;
      };
      response: {
        vals: Array<unknown>;
      };
    };
  };
  "/server_info": {
    get: {
      body: never;
      response: {
        min_required_weave_python_version: string;
        trace_server_version: string;
      };
    };
  };
  "/service/projects_info": {
    post: {
      body: {
        project_ids: Array<string>;
      };
      response: Array<{
        external_project_id: string;
        internal_project_id: string;
      }>;
    };
  };
  "/table/create": {
    post: {
      body: {
        table: {
          project_id: string;
          rows: Array<{
            [key: string]: unknown;
          }>;
          expected_digest?: string | null;
        };
      };
      response: {
        digest: string;
        row_digests: Array<string>;
      };
    };
  };
  "/table/create_from_digests": {
    post: {
      body: {
        project_id: string;
        row_digests: Array<string>;
        expected_digest?: string | null;
      };
      response: {
        digest: string;
      };
    };
  };
  "/table/query": {
    post: {
      body: {
        project_id: string;
        digest: string;
        filter?: {
          row_digests?: Array<string> | null;
        } | null;
        limit?: number | string | null;
        offset?: number | string | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
      };
      response: {
        rows: Array<{
          digest: string;
          val: unknown;
          original_index: number;
        }>;
      };
    };
  };
  "/table/query_stats": {
    post: {
      body: {
        project_id: string;
        digest: string;
      };
      response: {
        count: number;
      };
    };
  };
  "/table/query_stats_batch": {
    post: {
      body: {
        project_id: string;
        digests?: Array<string>;
        include_storage_size?: true | false | 0 | 1 | "true" | "false";
      };
      response: {
        tables: Array<{
          count: number;
          digest: string;
          storage_size_bytes: number | null;
        }>;
      };
    };
  };
  "/table/query_stream": {
    post: {
      body: {
        project_id: string;
        digest: string;
        filter?: {
          row_digests?: Array<string> | null;
        } | null;
        limit?: number | string | null;
        offset?: number | string | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
      };
      response: unknown;
    };
  };
  "/table/update": {
    post: {
      body: {
        project_id: string;
        base_digest: string;
        updates: Array<{
          append: {
            row: {
              [key: string]: unknown;
            };
          };
        } | {
          pop: {
            index: number;
          };
        } | {
          insert: {
            index: number;
            row: {
              [key: string]: unknown;
            };
          };
        }>;
      };
      response: {
        digest: string;
        updated_row_digests: Array<string>;
      };
    };
  };
  "/tags": {
    get: {
      body: never;
      response: {
        tags: Array<string>;
      };
    };
  };
  "/threads/stream_query": {
    post: {
      body: {
        project_id: string;
        filter?: {
          after_datetime?: string | number | null;
          before_datetime?: string | number | null;
          thread_ids?: Array<string> | null;
        } | null;
        limit?: number | string | null;
        offset?: number | string | null;
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
        }> | null;
      };
      response: unknown;
    };
  };
  "/trace/usage": {
    post: {
      body: {
        project_id: string;
        filter?: {
          op_names?: Array<string> | null;
          input_refs?: Array<string> | null;
          output_refs?: Array<string> | null;
          parent_ids?: Array<string> | null;
          trace_ids?: Array<string> | null;
          call_ids?: Array<string> | null;
          thread_ids?: Array<string> | null;
          turn_ids?: Array<string> | null;
          trace_roots_only?: true | false | 0 | 1 | "true" | "false" | null;
          wb_user_ids?: Array<string> | null;
          wb_run_ids?: Array<string> | null;
        } | null;
        query?: {
          $expr: ApiSchemas["QueryOperand"];
        } | null;
        include_costs?: true | false | 0 | 1 | "true" | "false";
        limit?: number | string;
      };
      response: {
        call_usage: {
          [key: string]: {
            [key: string]: {
              requests: number;
              prompt_tokens: number;
              completion_tokens: number;
              total_tokens: number;
              cache_read_input_tokens: number;
              cache_creation_input_tokens: number;
              prompt_tokens_total_cost: number | null;
              completion_tokens_total_cost: number | null;
              cache_read_input_tokens_total_cost: number | null;
              cache_creation_input_tokens_total_cost: number | null;
            };
          };
        };
        unfinished_call_ids: Array<string>;
        unpriced_models?: Array<string>;
      };
    };
  };
  "/v1/chat/completions": {
    post: {
      body: {
        model: string;
        messages: Array<Record<string, unknown>>;
      };
      response: unknown;
    };
  };
  "/v1/health": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/preview/models": {
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        entity?: string | null;
        project: string;
        name: string;
        base_model: string;
        return_existing?: boolean | null;
      };
      response: unknown;
    };
  };
  "/v1/preview/models/{model_id}": {
    delete: {
      body: never;
      response: unknown;
    };
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/preview/models/{model_id}/checkpoints": {
    delete: {
      body: {
        steps: Array<number>;
      };
      response: unknown;
    };
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/preview/models/{model_id}/history": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/preview/models/{model_id}/log": {
    post: {
      body: {
        split: string;
        trajectory_groups: Array<{
          trajectories?: Array<{
            messages_and_choices?: Array<Record<string, unknown>>;
            reward?: number;
            tools?: Array<{
              type: string;
              function: {
                name: string;
              };
            }> | null;
            additional_histories?: Array<{
              messages_and_choices: Array<Record<string, unknown>>;
              tools?: Array<{
                type: string;
                function: {
                  name: string;
                };
              }> | null;
            }>;
            initial_policy_version?: number | null;
            final_policy_version?: number | null;
            metrics?: {
              [key: string]: number | boolean;
            };
            auto_metrics?: {
              [key: string]: number | boolean;
            };
            metadata?: {
              [key: string]: number | string | boolean | null;
            };
            logs?: Array<string>;
          }>;
          exceptions?: Array<{
            type?: string;
            message?: string;
          }>;
          metadata?: {
            [key: string]: number | string | boolean | null;
          };
          metrics?: {
            [key: string]: number | boolean;
          };
          logs?: Array<string>;
        }>;
      };
      response: unknown;
    };
  };
  "/v1/preview/models/{model_id}/training-jobs": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/preview/sft-training-jobs": {
    post: {
      body: {
        model_id: string;
        training_data_url?: string;
        training_folder_url?: string;
        config?: {
          batch_size?: number | "auto" | null;
          learning_rate?: number | Array<number> | null;
        } | null;
        experimental_config?: Record<string, unknown> | null;
      };
      response: unknown;
    };
  };
  "/v1/preview/training-jobs": {
    post: {
      body: {
        model_id: string;
        trajectory_groups: Array<{
          trajectories?: Array<{
            messages_and_choices?: Array<Record<string, unknown>>;
            reward?: number;
            tools?: Array<{
              type: string;
              function: {
                name: string;
              };
            }> | null;
            additional_histories?: Array<{
              messages_and_choices: Array<Record<string, unknown>>;
              tools?: Array<{
                type: string;
                function: {
                  name: string;
                };
              }> | null;
            }>;
            initial_policy_version?: number | null;
            final_policy_version?: number | null;
            metrics?: {
              [key: string]: number | boolean;
            };
            auto_metrics?: {
              [key: string]: number | boolean;
            };
            metadata?: {
              [key: string]: number | string | boolean | null;
            };
            logs?: Array<string>;
          }>;
          exceptions?: Array<{
            type?: string;
            message?: string;
          }>;
          metadata?: {
            [key: string]: number | string | boolean | null;
          };
          metrics?: {
            [key: string]: number | boolean;
          };
          logs?: Array<string>;
        }>;
        experimental_config?: {
          learning_rate?: number | null;
          scale_rewards?: boolean | null;
          advantage_balance?: number | null;
          ppo?: boolean | null;
          loss_fn?: "ppo" | "cispo" | null;
          epsilon?: number | null;
          epsilon_high?: number | null;
          importance_sampling_level?: "token" | "sequence" | "average" | "geometric_average" | null;
          max_negative_advantage_importance_sampling_weight?: number | null;
          mask_prob_ratio?: boolean | null;
          kimi_k2_tau?: number | null;
          partner_k2_tau?: number | null;
          precalculate_logprobs?: boolean | null;
          allow_training_without_logprobs?: boolean | null;
          normalize_advantages?: boolean | null;
          truncated_importance_sampling?: number | null;
          kl_penalty_coef?: number | null;
        } | null;
      };
      response: unknown;
    };
  };
  "/v1/preview/training-jobs/{training_job_id}": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/preview/training-jobs/{training_job_id}/events": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/system-check": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/checkpoint": {
    post: {
      body: never;
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/complete": {
    post: {
      body: {
        fencing_token: number;
        checkpoint_base64: string;
        metrics?: {
          [key: string]: number;
        };
        num_gradient_steps: number;
      };
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/events": {
    post: {
      body: {
        fencing_token: number;
        seq: number;
        type: "training_started" | "gradient_step";
        data: {
          [key: string]: number;
        };
      };
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/fail": {
    post: {
      body: {
        fencing_token: number;
        error_message: string;
      };
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/heartbeat": {
    post: {
      body: {
        fencing_token: number;
        lease_seconds?: number;
      };
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/parent-checkpoint": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v1/workers/jobs/{job_id}/release": {
    post: {
      body: {
        fencing_token: number;
        reason?: string;
      };
      response: unknown;
    };
  };
  "/v1/workers/lease": {
    post: {
      body: {
        worker_id: string;
        base_models: Array<string>;
        lease_seconds?: number;
        inference_url?: string;
        inference_token?: string;
      };
      response: unknown;
    };
  };
  "/v1/workers/models/{model_id}/checkpoints/{step}": {
    get: {
      body: never;
      response: unknown;
    };
  };
  "/v2/{entity}/{project}/call/end": {
    post: {
      body: {
        end: {
          project_id: string;
          id: string;
          ended_at: string | number;
          exception?: string | null;
          output?: unknown;
          summary: {
            usage?: {
              [key: string]: {
                prompt_tokens?: number | string | null;
                input_tokens?: number | string | null;
                completion_tokens?: number | string | null;
                output_tokens?: number | string | null;
                requests?: number | string | null;
                total_tokens?: number | string | null;
                [key: string]: unknown;
              };
            };
            status_counts?: {
              success?: number;
              error?: number;
              running?: number;
              descendant_error?: number;
            };
            [key: string]: unknown;
          };
          wb_run_step_end?: number | string | null;
        };
      };
      response: Record<string, unknown>;
    };
  };
  "/v2/{entity}/{project}/call/start": {
    post: {
      body: {
        start: {
          project_id: string;
          id?: string | null;
          op_name: string;
          display_name?: string | null;
          trace_id?: string | null;
          parent_id?: string | null;
          thread_id?: string | null;
          turn_id?: string | null;
          started_at: string | number;
          attributes: {
            [key: string]: unknown;
          };
          inputs: {
            [key: string]: unknown;
          };
          otel_dump?: {
            [key: string]: unknown;
          } | null;
          wb_user_id?: string | null;
          wb_run_id?: string | null;
          wb_run_step?: number | string | null;
        };
      };
      response: {
        id: string;
        trace_id: string;
      };
    };
  };
  "/v2/{entity}/{project}/calls/complete": {
    post: {
      body: {
        batch: Array<{
          project_id: string;
          id?: string | null;
          op_name: string;
          display_name?: string | null;
          trace_id?: string | null;
          parent_id?: string | null;
          thread_id?: string | null;
          turn_id?: string | null;
          started_at: string | number;
          attributes: {
            [key: string]: unknown;
          };
          inputs: {
            [key: string]: unknown;
          };
          otel_dump?: {
            [key: string]: unknown;
          } | null;
          wb_user_id?: string | null;
          wb_run_id?: string | null;
          wb_run_step?: number | string | null;
          ended_at: string | number;
          exception?: string | null;
          output?: unknown;
          summary: {
            usage?: {
              [key: string]: {
                prompt_tokens?: number | string | null;
                input_tokens?: number | string | null;
                completion_tokens?: number | string | null;
                output_tokens?: number | string | null;
                requests?: number | string | null;
                total_tokens?: number | string | null;
                [key: string]: unknown;
              };
            };
            status_counts?: {
              success?: number;
              error?: number;
              running?: number;
              descendant_error?: number;
            };
            [key: string]: unknown;
          };
          wb_run_step_end?: number | string | null;
        }>;
      };
      response: Record<string, unknown>;
    };
  };
  "/v2/{entity}/{project}/datasets": {
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        name?: string | null;
        description?: string | null;
        rows: Array<{
          [key: string]: unknown;
        }>;
      };
      response: {
        digest: string;
        object_id: string;
        version_index: number;
      };
    };
  };
  "/v2/{entity}/{project}/datasets/{object_id}": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
  };
  "/v2/{entity}/{project}/datasets/{object_id}/versions/{digest}": {
    get: {
      body: never;
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        created_at: string;
        name: string;
        description?: string | null;
        rows: string;
      };
    };
  };
  "/v2/{entity}/{project}/eval_results/query": {
    post: {
      body: {
        evaluation_call_ids?: Array<string> | null;
        evaluation_run_ids?: Array<string> | null;
        require_intersection?: true | false | 0 | 1 | "true" | "false";
        include_raw_data_rows?: true | false | 0 | 1 | "true" | "false";
        resolve_row_refs?: true | false | 0 | 1 | "true" | "false";
        include_rows?: true | false | 0 | 1 | "true" | "false";
        include_summary?: true | false | 0 | 1 | "true" | "false";
        summary_require_intersection?: true | false | 0 | 1 | "true" | "false" | null;
        include_predict_and_score_children?: true | false | 0 | 1 | "true" | "false";
        include_costs?: true | false | 0 | 1 | "true" | "false";
        sort_by?: Array<{
          field: string;
          direction: "asc" | "desc";
          evaluation_call_id?: string | null;
          mode?: "value" | "difference";
        }> | null;
        filters?: Array<{
          evaluation_call_id?: string | null;
          query: {
            $expr: ApiSchemas["QueryOperand"];
          };
        }> | null;
        filter_logic_operator?: "and" | "or";
        limit?: number | string | null;
        offset?: number | string;
      };
      response: {
        rows: Array<{
          row_digest: string;
          raw_data_row: unknown;
          evaluations: Array<{
            evaluation_call_id: string;
            trials: Array<{
              predict_and_score_call_id: string;
              predict_call_id?: string | null;
              model_output: unknown;
              scores: {
                [key: string]: unknown;
              };
              model_latency_seconds?: number | null;
              total_tokens?: number | null;
              total_cost?: number | null;
              scorer_call_ids: {
                [key: string]: string;
              };
              genai_span_ref?: Array<{
                trace_id: string;
                span_id: string;
              }> | null;
            }>;
          }>;
        }>;
        total_rows: number;
        summary?: {
          row_count: number;
          evaluations: Array<{
            evaluation_call_id: string;
            trial_count: number;
            scorer_stats: Array<{
              scorer_key: string;
              path?: string | null;
              value_type?: "binary" | "continuous" | "text";
              trial_count: number;
              numeric_count: number;
              numeric_mean?: number | null;
              pass_true_count: number;
              pass_known_count: number;
              pass_rate?: number | null;
              pass_signal_coverage?: number | null;
            }>;
            predict_total_tokens?: number | null;
            predict_total_cost?: number | null;
            evaluation_ref?: string | null;
            model_ref?: string | null;
            display_name?: string | null;
            trace_id?: string | null;
            started_at?: string | null;
          }>;
        } | null;
        warnings: Array<string>;
      };
    };
  };
  "/v2/{entity}/{project}/evaluation_runs": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        evaluation: string;
        model: string;
        source_evaluation_run_id?: string | null;
      };
      response: {
        evaluation_run_id: string;
      };
    };
  };
  "/v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}": {
    get: {
      body: never;
      response: {
        evaluation_run_id: string;
        evaluation: string;
        model: string;
        status?: string | null;
        started_at?: string | null;
        finished_at?: string | null;
        summary?: {
          [key: string]: unknown;
        } | null;
        source_evaluation_run_id?: string | null;
      };
    };
  };
  "/v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}/finish": {
    post: {
      body: {
        summary?: {
          [key: string]: unknown;
        } | null;
      };
      response: {
        success: boolean;
      };
    };
  };
  "/v2/{entity}/{project}/evaluations": {
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        name: string;
        description?: string | null;
        dataset: string;
        scorers?: Array<string> | null;
        trials?: number;
        evaluation_name?: string | null;
        eval_attributes?: {
          [key: string]: unknown;
        } | null;
      };
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        evaluation_ref: string;
      };
    };
  };
  "/v2/{entity}/{project}/evaluations/{object_id}": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
  };
  "/v2/{entity}/{project}/evaluations/{object_id}/versions/{digest}": {
    get: {
      body: never;
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        created_at: string;
        name: string;
        description?: string | null;
        dataset: string;
        scorers: Array<string>;
        trials: number;
        evaluation_name?: string | null;
        evaluate_op?: string | null;
        predict_and_score_op?: string | null;
        summarize_op?: string | null;
      };
    };
  };
  "/v2/{entity}/{project}/models": {
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        name: string;
        description?: string | null;
        source_code: string;
        attributes?: {
          [key: string]: unknown;
        } | null;
      };
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        model_ref: string;
      };
    };
  };
  "/v2/{entity}/{project}/models/{object_id}": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
  };
  "/v2/{entity}/{project}/models/{object_id}/versions/{digest}": {
    get: {
      body: never;
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        created_at: string;
        name: string;
        description?: string | null;
        source_code: string;
        attributes?: {
          [key: string]: unknown;
        } | null;
      };
    };
  };
  "/v2/{entity}/{project}/ops": {
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        name?: string | null;
        source_code?: string | null;
      };
      response: {
        digest: string;
        object_id: string;
        version_index: number;
      };
    };
  };
  "/v2/{entity}/{project}/ops/{object_id}": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
  };
  "/v2/{entity}/{project}/ops/{object_id}/versions/{digest}": {
    get: {
      body: never;
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        created_at: string;
        code: string;
      };
    };
  };
  "/v2/{entity}/{project}/predictions": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        model: string;
        inputs: {
          [key: string]: unknown;
        };
        output: unknown;
        evaluation_run_id?: string | null;
        genai_span_ref?: Array<{
          trace_id: string;
          span_id: string;
        }> | null;
      };
      response: {
        prediction_id: string;
      };
    };
  };
  "/v2/{entity}/{project}/predictions/{prediction_id}": {
    get: {
      body: never;
      response: {
        prediction_id: string;
        model: string;
        inputs: {
          [key: string]: unknown;
        };
        output: unknown;
        evaluation_run_id?: string | null;
        wb_user_id?: string | null;
      };
    };
  };
  "/v2/{entity}/{project}/predictions/{prediction_id}/finish": {
    post: {
      body: Record<string, unknown>;
      response: {
        success: boolean;
      };
    };
  };
  "/v2/{entity}/{project}/scorers": {
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        name: string;
        description?: string | null;
        op_source_code: string;
      };
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        scorer: string;
      };
    };
  };
  "/v2/{entity}/{project}/scorers/{object_id}": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
  };
  "/v2/{entity}/{project}/scorers/{object_id}/versions/{digest}": {
    get: {
      body: never;
      response: {
        digest: string;
        object_id: string;
        version_index: number;
        created_at: string;
        name: string;
        description?: string | null;
        score_op: string;
      };
    };
  };
  "/v2/{entity}/{project}/scores": {
    delete: {
      body: never;
      response: {
        num_deleted: number;
      };
    };
    get: {
      body: never;
      response: unknown;
    };
    post: {
      body: {
        prediction_id: string;
        scorer: string;
        value: unknown;
        evaluation_run_id?: string | null;
      };
      response: {
        score_id: string;
      };
    };
  };
  "/v2/{entity}/{project}/scores/{score_id}": {
    get: {
      body: never;
      response: {
        score_id: string;
        scorer: string;
        value: unknown;
        evaluation_run_id?: string | null;
        wb_user_id?: string | null;
      };
    };
  };
  "/version": {
    get: {
      body: never;
      response: {
        version: string;
      };
    };
  };
}

/**
 * `postJson` and `postJsonl` (client.ts): one signature per POST path with a JSON body, the path a
 * template (`{id}` is any text), so a body the server's schema would refuse does not compile.
 */
export interface ApiPost<R> {
  <T>(path: `/agents/agent-versions/query`, body: ApiPaths["/agents/agent-versions/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/conversations/chat`, body: ApiPaths["/agents/conversations/chat"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/conversations/spans`, body: ApiPaths["/agents/conversations/spans"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/otel/v1/traces`, body: ApiPaths["/agents/otel/v1/traces"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/query`, body: ApiPaths["/agents/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/search`, body: ApiPaths["/agents/search"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/spans/custom-attrs/schema`, body: ApiPaths["/agents/spans/custom-attrs/schema"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/spans/diagnostics`, body: ApiPaths["/agents/spans/diagnostics"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/spans/query`, body: ApiPaths["/agents/spans/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/spans/stats`, body: ApiPaths["/agents/spans/stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/agents/traces/chat`, body: ApiPaths["/agents/traces/chat"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/annotation_queues`, body: ApiPaths["/annotation_queues"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/annotation_queues/${string}/items`, body: ApiPaths["/annotation_queues/{queue_id}/items"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/annotation_queues/${string}/items/${string}/progress`, body: ApiPaths["/annotation_queues/{queue_id}/items/{item_id}/progress"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/annotation_queues/${string}/items/query`, body: ApiPaths["/annotation_queues/{queue_id}/items/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/annotation_queues/query`, body: ApiPaths["/annotation_queues/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/annotation_queues/stats`, body: ApiPaths["/annotation_queues/stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/auth/session`, body: ApiPaths["/auth/session"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/call/end`, body: ApiPaths["/call/end"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/call/read`, body: ApiPaths["/call/read"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/call/start`, body: ApiPaths["/call/start"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/call/update`, body: ApiPaths["/call/update"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/call/upsert_batch`, body: ApiPaths["/call/upsert_batch"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/delete`, body: ApiPaths["/calls/delete"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/export`, body: ApiPaths["/calls/export"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/query`, body: ApiPaths["/calls/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/query_stats`, body: ApiPaths["/calls/query_stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/score`, body: ApiPaths["/calls/score"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/stats`, body: ApiPaths["/calls/stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/stream_query`, body: ApiPaths["/calls/stream_query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/calls/usage`, body: ApiPaths["/calls/usage"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/completions/create`, body: ApiPaths["/completions/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/completions/create_stream`, body: ApiPaths["/completions/create_stream"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/cost/create`, body: ApiPaths["/cost/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/cost/purge`, body: ApiPaths["/cost/purge"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/cost/query`, body: ApiPaths["/cost/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/evaluations/evaluate_model`, body: ApiPaths["/evaluations/evaluate_model"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/evaluations/status`, body: ApiPaths["/evaluations/status"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/batch/create`, body: ApiPaths["/feedback/batch/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/create`, body: ApiPaths["/feedback/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/payload_schema`, body: ApiPaths["/feedback/payload_schema"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/purge`, body: ApiPaths["/feedback/purge"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/query`, body: ApiPaths["/feedback/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/replace`, body: ApiPaths["/feedback/replace"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/feedback/stats`, body: ApiPaths["/feedback/stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/file/content`, body: ApiPaths["/file/content"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/files/query_stats`, body: ApiPaths["/files/query_stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/image/create`, body: ApiPaths["/image/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/keys/create`, body: ApiPaths["/keys/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/keys/query`, body: ApiPaths["/keys/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/keys/revoke`, body: ApiPaths["/keys/revoke"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/memberships/query`, body: ApiPaths["/memberships/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/memberships/update`, body: ApiPaths["/memberships/update"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/obj/create`, body: ApiPaths["/obj/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/obj/delete`, body: ApiPaths["/obj/delete"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/obj/read`, body: ApiPaths["/obj/read"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/objs/${string}/aliases/remove`, body: ApiPaths["/objs/{object_id}/aliases/remove"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/objs/${string}/versions/${string}/tags/remove`, body: ApiPaths["/objs/{object_id}/versions/{digest}/tags/remove"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/objs/query`, body: ApiPaths["/objs/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/otel/v1/genai/span/start`, body: ApiPaths["/otel/v1/genai/span/start"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/otel/v1/traces`, body: ApiPaths["/otel/v1/traces"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/projects/${string}/${string}/retention/apply`, body: ApiPaths["/projects/{entity}/{project}/retention/apply"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/refs/read_batch`, body: ApiPaths["/refs/read_batch"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/service/projects_info`, body: ApiPaths["/service/projects_info"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/create`, body: ApiPaths["/table/create"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/create_from_digests`, body: ApiPaths["/table/create_from_digests"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/query`, body: ApiPaths["/table/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/query_stats`, body: ApiPaths["/table/query_stats"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/query_stats_batch`, body: ApiPaths["/table/query_stats_batch"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/query_stream`, body: ApiPaths["/table/query_stream"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/table/update`, body: ApiPaths["/table/update"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/threads/stream_query`, body: ApiPaths["/threads/stream_query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/trace/usage`, body: ApiPaths["/trace/usage"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/chat/completions`, body: ApiPaths["/v1/chat/completions"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/preview/models`, body: ApiPaths["/v1/preview/models"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/preview/models/${string}/log`, body: ApiPaths["/v1/preview/models/{model_id}/log"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/preview/sft-training-jobs`, body: ApiPaths["/v1/preview/sft-training-jobs"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/preview/training-jobs`, body: ApiPaths["/v1/preview/training-jobs"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/workers/jobs/${string}/complete`, body: ApiPaths["/v1/workers/jobs/{job_id}/complete"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/workers/jobs/${string}/events`, body: ApiPaths["/v1/workers/jobs/{job_id}/events"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/workers/jobs/${string}/fail`, body: ApiPaths["/v1/workers/jobs/{job_id}/fail"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/workers/jobs/${string}/heartbeat`, body: ApiPaths["/v1/workers/jobs/{job_id}/heartbeat"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/workers/jobs/${string}/release`, body: ApiPaths["/v1/workers/jobs/{job_id}/release"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v1/workers/lease`, body: ApiPaths["/v1/workers/lease"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/call/end`, body: ApiPaths["/v2/{entity}/{project}/call/end"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/call/start`, body: ApiPaths["/v2/{entity}/{project}/call/start"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/calls/complete`, body: ApiPaths["/v2/{entity}/{project}/calls/complete"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/datasets`, body: ApiPaths["/v2/{entity}/{project}/datasets"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/eval_results/query`, body: ApiPaths["/v2/{entity}/{project}/eval_results/query"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/evaluation_runs`, body: ApiPaths["/v2/{entity}/{project}/evaluation_runs"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/evaluation_runs/${string}/finish`, body: ApiPaths["/v2/{entity}/{project}/evaluation_runs/{evaluation_run_id}/finish"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/evaluations`, body: ApiPaths["/v2/{entity}/{project}/evaluations"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/models`, body: ApiPaths["/v2/{entity}/{project}/models"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/ops`, body: ApiPaths["/v2/{entity}/{project}/ops"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/predictions`, body: ApiPaths["/v2/{entity}/{project}/predictions"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/predictions/${string}/finish`, body: ApiPaths["/v2/{entity}/{project}/predictions/{prediction_id}/finish"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/scorers`, body: ApiPaths["/v2/{entity}/{project}/scorers"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
  <T>(path: `/v2/${string}/${string}/scores`, body: ApiPaths["/v2/{entity}/{project}/scores"]['post']['body'], signal?: AbortSignal): Promise<R extends 'rows' ? T[] : T>;
}
