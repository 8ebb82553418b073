/**
 * The app: one request's way from its context through the router to a handler or the fallback,
 * and every failure turned into a problem answer; `GET /`, the entry point.
 */
export { type AppObserver, FALLBACK_CONTROLLER } from './app-observer.js';
export { type AppOptions, createApp, type Handler, type WatchRequest } from './app.js';
export { describeVersions } from './entry-point.js';

