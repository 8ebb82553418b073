export { type AppObserver, FALLBACK_CONTROLLER } from './app-observer.js';
export { type AppOptions, createApp, type Handler, type WatchRequest } from './app.js';

