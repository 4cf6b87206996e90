'use strict'
// Runs flying-squid with a settings file written by world/mineflayer/server.py.
// Usage: node squid_server.js <node_modules dir> <settings.json>
// Prints one line "CRAFTBT_SQUID_READY <port>" once the server listens and its
// plugins are loaded; server.py waits for that line instead of sleeping.
const fs = require('fs')
const path = require('path')

const [nodeModules, settingsPath] = process.argv.slice(2)
const settings = JSON.parse(fs.readFileSync(settingsPath, 'utf8'))
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
process.on('unhandledRejection', (err) => {
  console.log(`CRAFTBT_SQUID_UNHANDLED ${err && err.stack}`)
})
