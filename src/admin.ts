/**
 * The operator's side, the door of `admin/`: the listener of `/healthz`, `/readyz` and
 * `/metrics`, and the readiness checks it runs.
 */
export { ADMIN_PATHS, startAdminListener, type AdminListener, type AdminSources } from './admin/listener.js';
export { CHECK_TIMEOUT_MS, reportOf, runChecks, type CheckOutcome, type ReadinessCheck, type ReadinessReport } from './admin/readiness.js';
export { isAdminReport, reportToPrimary, WorkerReports, type AdminReport, type WorkerSources } from './admin/cluster-link.js';
