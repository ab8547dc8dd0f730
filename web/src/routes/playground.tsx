import { createRoute } from '@tanstack/react-router';
import { PlaygroundPage } from '../features/playground/playground-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

/** The playground; `?call=<id>` starts from that chat call's model, messages and parameters. */
export const playgroundRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/playground',
  validateSearch: (raw: Record<string, unknown>): { call?: string } => {
    const call = optionalString(raw.call);
    return call && call.length <= 128 ? { call } : {};
  },
  component: PlaygroundPage,
});
