// The maintenance window's wire form (an extension): a weekly window in an IANA time zone and what runs in it;
// the view GET (and PUT) answers.
import { Type, type Static } from '@sinclair/typebox';
import { DURATION, WEEKDAYS } from '../../../../domain/maintenance-window.js';

const Day = Type.Unsafe<(typeof WEEKDAYS)[number]>({ type: 'string', enum: [...WEEKDAYS], description: 'The day the window opens on, in its time zone.' });
const AUTO_UPGRADES = ['none', 'latest_patch', 'template'] as const;

export const MaintenanceSettings = Type.Object(
  {
    window: Type.Object(
      {
        day: Day,
        start: Type.String({ minLength: 1, maxLength: 5, description: 'HH:MM, 24-hour wall-clock time in `timezone` (a time skipped by daylight saving opens at the end of the gap).' }),
        duration_minutes: Type.Integer({ minimum: DURATION.min, maximum: DURATION.max, description: 'Elapsed minutes; a window may run past midnight.' }),
        timezone: Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone, e.g. Europe/Berlin.' }),
      },
      { additionalProperties: false },
    ),
    upgrade: Type.Object(
      {
        auto_upgrade: Type.Unsafe<(typeof AUTO_UPGRADES)[number]>({
          type: 'string',
          enum: [...AUTO_UPGRADES],
          description: 'none: nothing runs; latest_patch: the newest template of the running minor the upgrade path accepts; template: the chosen one.',
        }),
        cluster_template_id: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], { description: 'UUID or name, only with auto_upgrade "template" (stored as its UUID).' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, $id: 'MaintenanceSettings' },
);
export type MaintenanceSettingsT = Static<typeof MaintenanceSettings>;

const Span = Type.Union([Type.Object({ start: Type.String(), end: Type.String() }), Type.Null()], { description: 'ISO-8601 UTC.' });

export const ClusterMaintenance = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    settings: Type.Union([Type.Ref(MaintenanceSettings), Type.Null()]),
    open_now: Type.Boolean({ description: 'Whether a window is open now.' }),
    open_window: Span,
    next_window: Span,
    planned_upgrade: Type.Union([
      Type.Object(
        {
          cluster_template_id: Type.String(),
          name: Type.String(),
          from: Type.String(),
          to: Type.String(),
          kind: Type.Union([Type.Literal('patch'), Type.Literal('minor')]),
        },
        { description: 'The upgrade a window would begin now.' },
      ),
      Type.Null(),
    ]),
    nothing_planned: Type.Union([Type.String(), Type.Null()], { description: 'Why a window would run nothing now.' }),
    last_run: Type.Union([
      Type.Object(
        {
          window_start: Type.String(),
          outcome: Type.Union(['waiting', 'started', 'nothing', 'refused', 'skipped'].map((o) => Type.Literal(o)), {
            description: 'waiting: open, the cluster busy or hibernated (tried again each pass); started; nothing: no upgrade to run; refused: the upgrade’s checks refused it; skipped: busy the whole window.',
          }),
          reason: Type.Union([Type.String(), Type.Null()]),
          upgrade: Type.Union([Type.Object({ cluster_template_id: Type.String(), name: Type.String(), from: Type.String(), to: Type.String() }), Type.Null()]),
          at: Type.String(),
        },
        { description: 'What the latest window did.' },
      ),
      Type.Null(),
    ]),
  },
  { $id: 'ClusterMaintenance' },
);
