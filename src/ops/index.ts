/**
 * The operator's side: `/healthz`, `/readyz` and `/metrics` on the operator's listener
 * (ADMIN_PORT), the readiness checks, the service's metrics and the request watch behind the
 * access log and the metrics. Only `createOperability` is loaded with the service: it imports
 * the rest when a setting asks for it, so a service without ADMIN_PORT or ACCESS_LOG never
 * reads those modules, and the cluster primary loads its part with `loadClusterAdmin`.
 */
export { createOperability, type Operability } from './operability.js';
export type { AdminListener } from './listener.js';

/** The cluster primary's operator listener, serving every worker's reports. */
export async function loadClusterAdmin() {
  const [{ createClusterAdmin }, { isAdminReport }] = await Promise.all([import('./cluster-admin.js'), import('./cluster-link.js')]);
  return { createClusterAdmin, isAdminReport };
}
