/**
 * The hub's entry: defines every element and mounts the shell. Runtime
 * configuration is already on globalThis: /config.js is a plain script that
 * index.html loads before this module.
 */
import './components/svc-app.ts'
