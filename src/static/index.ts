export { createStaticHandler, STATIC_METHODS } from './serve.js';
