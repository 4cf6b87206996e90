'use strict'
// craftbt's terrain on flying-squid: the embedded world's blocks, read from a file Python wrote.
//
// This one module is two things flying-squid loads:
//   * a world generator: settings.generation.name is this file's path (flying-squid requires a
//     generation it does not know by name), called as generation(options) -> (chunkX, chunkZ) -> Chunk.
//     options.terrainFile is the file world/mineflayer/terrain.py wrote (format in its docstring): per
//     chunk of a square region around the spawn, the embedded store's palette indices. Each palette
//     entry [name, {property: value}] becomes a state id of the served version through minecraft-data
//     (the block's default state, with the given properties set), so unnamed properties keep vanilla's
//     defaults (grass_block is not snowy). Outside the region a chunk is air.
//   * a plugin (module.exports.server): the fixed spawn point (the embedded world's spawn cell, not
//     flying-squid's random one), the embedded world's start time (and a fixed time of day if asked)
//     and the animals the embedded world placed with each chunk, summoned
//     through squid_vanilla.js (serv.craftbtSummon) once the chunk has been generated.
// No terrain rule lives here: the Python generators are the one definition.

const fs = require('fs')
const path = require('path')
const zlib = require('zlib')

const MAGIC = 'CBTW'
const FORMAT = 1

// The generated chunks whose animals the plugin has not summoned yet (shared by both halves).
const pendingAnimals = []
let loaded = null // { header, body } of the terrain file, read once

function readTerrain (file) {
  const data = fs.readFileSync(file)
  if (data.toString('latin1', 0, 4) !== MAGIC) throw new Error(`${file}: not a craftbt terrain file`)
  const size = data.readUInt32LE(4)
  const header = JSON.parse(data.toString('utf8', 8, 8 + size))
  if (header.format !== FORMAT) throw new Error(`${file}: terrain format ${header.format}, expected ${FORMAT}`)
  const index = new Map(header.chunks.map(([cx, cz, off, n]) => [`${cx},${cz}`, [off, n]]))
  const animals = new Map(header.animals.map(([cx, cz, list]) => [`${cx},${cz}`, list]))
  return { header, body: data.subarray(8 + size), index, animals }
}

function loadTerrain (file) {
  if (!loaded || loaded.file !== file) loaded = { file, ...readTerrain(file) }
  return loaded
}

function stateIdOf (registry, name, props, where) {
  // minecraft-data's state id: the block's default state with `props` set (mixed radix, the last
  // property varying fastest, as prismarine-block encodes it)
  const block = registry.blocksByName[name]
  if (!block) throw new Error(`terrain palette ${where}: block ${name} does not exist in ${registry.version.minecraftVersion}`)
  const states = block.states || []
  if (!states.length) return block.defaultState ?? block.minStateId
  let rest = (block.defaultState ?? block.minStateId) - block.minStateId
  const index = new Array(states.length)
  for (let i = states.length - 1; i >= 0; i--) {
    index[i] = rest % states[i].num_values
    rest = Math.floor(rest / states[i].num_values)
  }
  for (const [key, value] of Object.entries(props || {})) {
    const i = states.findIndex(s => s.name === key)
    if (i < 0) throw new Error(`terrain palette ${where}: ${name} has no property ${key}`)
    const s = states[i]
    let v
    if (s.type === 'bool') v = (value === true || value === 'true') ? 0 : 1
    else v = (s.values || []).indexOf(String(value))
    if (v < 0 || v >= s.num_values) throw new Error(`terrain palette ${where}: ${name}[${key}=${value}] is not a state`)
    index[i] = v
  }
  let data = 0
  for (let i = 0; i < states.length; i++) data = data * states[i].num_values + index[i]
  return block.minStateId + data
}

function generation (options) {
  const { registry } = options
  const modules = options.nodeModules
  const from = modules ? { paths: [path.join(modules, 'flying-squid'), modules] } : undefined
  const Chunk = require(require.resolve('prismarine-chunk', from))(registry)
  const { Vec3 } = require(require.resolve('vec3', from))
  const terrain = loadTerrain(options.terrainFile)
  const { header, body, index, animals } = terrain
  const ids = header.palette.map(([name, props], i) => stateIdOf(registry, name, props, `entry ${i}`))
  const sections = header.sections
  const minY = header.min_y
  const plains = registry.biomesByName.plains.id

  return function generateChunk (chunkX, chunkZ) {
    const chunk = new Chunk({ minY: -64, worldHeight: 384 })
    const key = `${chunkX},${chunkZ}`
    const at = index.get(key)
    const pos = new Vec3(0, 0, 0)
    if (at) {
      const raw = zlib.inflateSync(body.subarray(at[0], at[0] + at[1]))
      const cells = new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2)
      for (let s = 0; s < sections; s++) {
        const base = s * 4096
        for (let i = 0; i < 4096; i++) {
          const v = cells[base + i]
          if (v === 0) continue
          pos.x = i >> 8
          pos.z = (i >> 4) & 15
          pos.y = minY + s * 16 + (i & 15)
          chunk.setBlockStateId(pos, ids[v])
        }
      }
      if (animals.has(key)) pendingAnimals.push(animals.get(key))
    }
    // one biome everywhere, as the embedded world reports (biomes are stored per 4x4x4 cells)
    for (pos.x = 0; pos.x < 16; pos.x += 4) {
      for (pos.z = 0; pos.z < 16; pos.z += 4) {
        for (pos.y = -64; pos.y < 320; pos.y += 4) chunk.setBiome(pos, plains)
      }
    }
    return chunk
  }
}

module.exports = generation
module.exports.stateIdOf = stateIdOf

module.exports.server = function (serv, settings) {
  const gen = (settings.generation && settings.generation.options) || {}
  if (!gen.terrainFile) return
  const { Vec3 } = require(require.resolve('vec3', gen.nodeModules ? { paths: [path.join(gen.nodeModules, 'flying-squid'), gen.nodeModules] } : undefined))
  const [sx, sy, sz] = loadTerrain(gen.terrainFile).header.spawn
  // flying-squid's settings plugin sets a random spawn point after the external plugins load; replace
  // it once every plugin is in: the embedded world's spawn cell, feet centred on it
  // the clock: flying-squid starts at time 0, which a goal run reads as the end of the night (it shelters
  // until 1000); the embedded world starts at 1000. settings.craftbtClock = { start, cycle } (cycle false:
  // the time of day stays at start, as `FlyingSquid(daylight_cycle=False)` asks)
  const clock = settings.craftbtClock || {}
  serv.on('pluginsReady', () => {
    serv.getSpawnPoint = async () => new Vec3(sx + 0.5, sy, sz + 0.5)
    if (typeof clock.start === 'number') serv.setTime(clock.start)
    if (clock.cycle === false) serv.doDaylightCycle = false
  })
  const summonAnimals = () => {
    if (!serv.craftbtSummon || !serv.overworld) return
    while (pendingAnimals.length) {
      for (const [name, x, y, z] of pendingAnimals.shift()) {
        const def = serv.registry.entitiesByName[name]
        if (def) serv.craftbtSummon(def, serv.overworld, new Vec3(x, y, z))
      }
    }
  }
  const timer = setInterval(summonAnimals, 250)
  timer.unref()
  serv.on('close', () => clearInterval(timer))
}
