// Every migration, oldest first. Landed migrations are never edited: add a new one.
import { Initial1763780000000 } from './1763780000000-initial.js';
import { TemplateChangeNotify1763790000000 } from './1763790000000-template-change-notify.js';
import { Clusters1763800000000 } from './1763800000000-clusters.js';
import { ResourceLedger1763810000000 } from './1763810000000-resource-ledger.js';
import { AutoHealing1763820000000 } from './1763820000000-auto-healing.js';
import { ClusterChangeNotify1763830000000 } from './1763830000000-cluster-change-notify.js';
import { ScaleIndexes1763840000000 } from './1763840000000-scale-indexes.js';
import { ClusterCredentialOwner1763850000000 } from './1763850000000-cluster-credential-owner.js';
import { OutboxClaims1763860000000 } from './1763860000000-outbox-claims.js';
import { NodeMaterial1763870000000 } from './1763870000000-node-material.js';
import { QuotaHolds1763880000000 } from './1763880000000-quota-holds.js';
import { Hibernation1763895000000 } from './1763895000000-hibernation.js';
import { MaintenanceWindow1763905000000 } from './1763905000000-maintenance-window.js';

export const migrations = [Initial1763780000000, TemplateChangeNotify1763790000000, Clusters1763800000000, ResourceLedger1763810000000, AutoHealing1763820000000, ClusterChangeNotify1763830000000, ScaleIndexes1763840000000, ClusterCredentialOwner1763850000000, OutboxClaims1763860000000, NodeMaterial1763870000000, QuotaHolds1763880000000, Hibernation1763895000000, MaintenanceWindow1763905000000];
