// The label parser's warnings (labels accepted but ignored, deprecated or unknown) in the cluster's event
// timeline: one warning event each, written with the create's acceptance.
import type { AcceptedEvent } from '../operations/begin.js';

export const labelWarningEvent = (message: string): AcceptedEvent => ({ reason: 'LabelWarning', message, severity: 'warning' });
