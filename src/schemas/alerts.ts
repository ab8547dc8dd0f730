import { Type } from '@sinclair/typebox';
import { LaxInt, strict } from './common.js';

/** Alerts' API models (docs/alerts.md). */

export const AlertParams = Type.Object({ entity: Type.String(), project: Type.String(), alert_id: Type.String() });

const AlertView = Type.Object({
  alert_id: Type.String(),
  active: Type.Boolean({ description: 'False once the AlertSpec object is deleted (publishing it again restarts it)' }),
  state: Type.Union([Type.Literal('ok'), Type.Literal('firing')]),
  value: Type.Union([Type.Number(), Type.Null()]),
  muted: Type.Boolean({ description: 'Notifies no one now (a timed mute that ended reads false)' }),
  muted_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the current timed mute ends; null when not muted or muted until unmuted',
  }),
  changed_at: Type.String({ format: 'date-time' }),
  evaluated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  spec_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the spec cannot be evaluated, if so' }),
  last_fired_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it last changed to firing, or null if it never fired',
  }),
  op_scope: Type.Array(Type.String(), { description: "The latest version's op refs (none: every op)" }),
  spec: Type.Object(
    {},
    { additionalProperties: true, description: "The latest version's `spec` dictionary as published (docs/alerts.md)" },
  ),
});

export const AlertListRes = Type.Object({ alerts: Type.Array(AlertView) });

export const AlertHistoryQuery = Type.Object(
  { limit: Type.Optional(LaxInt({ minimum: 1, maximum: 1000, default: 100 })) },
  strict,
);

const Delivery = Type.Object({
  target: Type.Integer(),
  url: Type.String(),
  format: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  idempotency_key: Type.String(),
});

export const AlertHistoryRes = Type.Object({
  alert: AlertView,
  events: Type.Array(
    Type.Object({
      event_id: Type.String(),
      state: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
      at: Type.String({ format: 'date-time' }),
      event: Type.Object({}, { additionalProperties: true }),
      deliveries: Type.Array(Delivery),
    }),
  ),
});

export const AlertMuteReq = Type.Object(
  {
    muted: Type.Boolean(),
    until: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'With muted true: an ISO 8601 time in the future when the mute ends by itself (default: never)',
      }),
    ),
  },
  strict,
);
export const AlertMuteRes = Type.Object({
  alert_id: Type.String(),
  muted: Type.Boolean(),
  muted_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
