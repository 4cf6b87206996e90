'use strict'
// Runs flying-squid with a settings file written by world/mineflayer/server.py.
// Usage: node squid_server.js <node_modules dir> <settings.json>
// Prints one line "CRAFTBT_SQUID_READY <port>" once the server listens and its
// plugins are loaded; server.py waits for that line instead of sleeping.
const fs = require('fs')
const path = require('path')

const [nodeModules, settingsPath] = process.argv.slice(2)
const settings = JSON.parse(fs.readFileSync(settingsPath, 'utf8'))
// craftbt's plugin (squid_vanilla.js) loads flying-squid's own item and window modules from here
if (settings.craftbt) settings.craftbt.nodeModules = nodeModules
// squid_terrain.js (generator and plugin) loads prismarine-chunk and vec3 from there too
if (settings.generation && settings.generation.options && settings.generation.options.terrainFile) settings.generation.options.nodeModules = nodeModules
const squid = require(path.join(nodeModules, 'flying-squid'))

const serv = squid.createMCServer(settings)
serv.on('ready', () => {
  console.log(`CRAFTBT_SQUID_READY ${serv.listeningPort}`)
})
serv.on('error', (err) => {
  console.log(`CRAFTBT_SQUID_ERROR ${err && err.message}`)
})

function shutdown () {
  // quit() kicks players so their bots see a clean 'end'; exit even if it stalls.
  setTimeout(() => process.exit(0), 1500).unref()
  Promise.resolve(serv.quit('Server stopped')).finally(() => process.exit(0))
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)

// The server runs in its own session (so Ctrl-C in a terminal reaches only craftbt, which stops it
// in order); a parent killed by SIGKILL can stop nothing, so the server stops itself when its
// parent pid changes, and removes its private directory when server.py says it owns it.
const parent = process.ppid
setInterval(() => {
  if (process.ppid === parent) return
  const owned = process.env.CRAFTBT_SQUID_REMOVE_DIR
  if (owned) {
    process.on('exit', () => {
      try { fs.rmSync(owned, { recursive: true, force: true }) } catch (e) {}
    })
  }
  shutdown()
}, 500).unref()
process.on('unhandledRejection', (err) => {
  console.log(`CRAFTBT_SQUID_UNHANDLED ${err && err.stack}`)
})
