import { createRoute } from '@tanstack/react-router';
import { PlaygroundPage } from '../features/playground/playground-page.js';
import { optionalString } from '../lib/search.js';
import { rootRoute } from './root.js';

/**
 * The playground; `?call=<id>` starts from that chat call's model, messages and parameters,
 * `?prompt=<name>:<digest>` from a saved `MessagesPrompt` version's messages.
 */
export const playgroundRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/$entity/$project/weave/playground',
  validateSearch: (raw: Record<string, unknown>): { call?: string; prompt?: string } => {
    const call = optionalString(raw.call);
    const prompt = optionalString(raw.prompt);
    return {
      ...(call && call.length <= 128 ? { call } : {}),
      ...(prompt && prompt.length <= 300 ? { prompt } : {}),
    };
  },
  component: PlaygroundPage,
});
