import { lazy } from 'react';
import { createRoute } from '@tanstack/react-router';
import { SPAN_GROUPS } from '../lib/agents.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

// the spans page carries the chart library; it loads only when opened
const AgentSpansPage = lazy(() => import('../features/agents/spans-page.js'));

interface SpansSearch {
  group?: string;
  attrs?: string;
  days?: number;
}

export const agentSpansRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/agents/spans',
  validateSearch: (raw: Record<string, unknown>): SpansSearch => {
    const out: SpansSearch = {};
    const group = optionalString(raw.group);
    if (group && SPAN_GROUPS.some((g) => g.key === group)) out.group = group;
    const attrs = optionalString(raw.attrs);
    if (attrs) out.attrs = attrs;
    const days = Number(raw.days);
    if (days === 7) out.days = days;
    return out;
  },
  component: AgentSpansPage,
});
