import { createRoute, redirect } from '@tanstack/react-router';
import type { ObjectKind } from '../lib/object-kinds.js';
import { parseTracesSearch } from '../lib/query.js';
import { rootRoute } from './root.js';

/**
 * Weave's own UI paths (`/{entity}/{project}/weave/traces`, `…/weave/calls/{id}`, `…/weave/datasets`
 * …), so a link copied from Weave opens the same page here: each redirects to Heddle's route,
 * keeping its query string.
 */
const weaveAlias = (path: string, to: (params: Record<string, string>, search: Record<string, unknown>) => never) =>
  createRoute({
    getParentRoute: () => rootRoute,
    path,
    beforeLoad: ({ params, search }) => to(params as Record<string, string>, search as Record<string, unknown>),
  });
const toObjects = (kind?: ObjectKind) => (params: Record<string, string>) => {
  throw redirect({
    to: '/$entity/$project/weave/objects',
    params: { entity: params.entity!, project: params.project! },
    search: kind ? { kind } : {},
    replace: true,
  });
};
export const weaveAliases = [
  weaveAlias('/$entity/$project/weave/traces', (params, search) => {
    throw redirect({
      to: '/$entity/$project/weave',
      params: { entity: params.entity!, project: params.project! },
      search: parseTracesSearch(search),
      replace: true,
    });
  }),
  weaveAlias('/$entity/$project/weave/calls/$callId', (params) => {
    throw redirect({
      to: '/$entity/$project/r/call/$callId',
      params: { entity: params.entity!, project: params.project!, callId: params.callId! },
      search: {},
      replace: true,
    });
  }),
  weaveAlias('/$entity/$project/weave/datasets', toObjects('dataset')),
  weaveAlias('/$entity/$project/weave/ops', toObjects('op')),
  weaveAlias('/$entity/$project/weave/models', toObjects('model')),
  weaveAlias('/$entity/$project/weave/scorers', toObjects('scorer')),
  weaveAlias('/$entity/$project/weave/prompts', toObjects('prompt')),
];
