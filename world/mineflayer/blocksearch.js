'use strict'
// Block search for the adapter (adapter.js): every block of some kinds within a radius, in one pass
// over the chunks the bot holds, nearest first.
//
// Why not mineflayer's bot.findBlocks: for every 16^3 section whose palette holds a wanted block it
// builds a full Block object for each of the section's 4096 cells and only then filters by distance,
// so even a radius-2 search that touches a section with one stone in it costs ~50 ms on a shared
// machine (measured: 44-80 ms per call, three calls per acquire_material search). Here a cell is one
// state-id read, only cells inside the sphere are read, and a section whose palette holds none of the
// wanted states is skipped without reading a cell. Same answers: the cells at Euclidean distance <= radius
// from the block the bot stands in, ordered by distance, ties by x, y, z.

// Per registry: which state ids are full cubes (a face against one is closed), built once.
const solidTables = new WeakMap()

function stateCount (registry) {
  let n = 0
  for (const b of registry.blocksArray) n = Math.max(n, b.maxStateId + 1)
  return n
}

function solidTable (registry) {
  let table = solidTables.get(registry)
  if (!table) {
    table = new Uint8Array(stateCount(registry))
    for (const b of registry.blocksArray) {
      if (b.boundingBox !== 'block') continue
      for (let s = b.minStateId; s <= b.maxStateId; s++) table[s] = 1
    }
    solidTables.set(registry, table)
  }
  return table
}

// state id -> 1 + index of the wanted name it belongs to (0: not wanted). Unknown names are skipped;
// the caller decides whether that is an error.
function tagTable (registry, names) {
  const table = new Uint16Array(stateCount(registry))
  names.forEach((n, i) => {
    const def = registry.blocksByName[n]
    if (!def) return
    for (let s = def.minStateId; s <= def.maxStateId; s++) table[s] = i + 1
  })
  return table
}

// Whether a section may hold a tagged state: its palette says so without reading a cell. A section with
// the global palette (no list) may hold anything.
function mayHold (section, tags) {
  if (!section) return tags[0] !== 0 // a missing section reads as air (state 0)
  const data = section.data
  if (data && typeof data.value === 'number' && !data.palette) return tags[data.value] !== 0 // one state
  if (Array.isArray(section.palette)) return section.palette.some((s) => tags[s] !== 0)
  return true
}

// Reads state ids by world position, remembering the last column (neighbour probes stay in it).
class StateReader {
  constructor (bot) {
    this.world = bot.world
    this.minY = bot.game.minY
    this.maxY = bot.game.minY + bot.game.height
    this.cx = null
    this.cz = null
    this.column = null
    this.local = { x: 0, y: 0, z: 0 }
  }

  columnAt (cx, cz) {
    if (cx !== this.cx || cz !== this.cz) {
      this.cx = cx
      this.cz = cz
      this.column = this.world.getColumn(cx, cz)
    }
    return this.column
  }

  // The state id at x, y, z, or -1 where no chunk is loaded; above and below the world is air, as
  // bot.blockAt reads it.
  at (x, y, z) {
    const column = this.columnAt(x >> 4, z >> 4)
    if (!column) return -1
    if (y < this.minY || y >= this.maxY) return 0
    const p = this.local
    p.x = x & 15
    p.y = y
    p.z = z & 15
    return column.getBlockStateId(p)
  }
}

const NEIGHBOURS = [[0, 1, 0], [0, -1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]]

// A face open to a loaded cell that is not a full cube (air, water, a torch, a slab...).
function exposed (reader, solid, x, y, z) {
  for (const [dx, dy, dz] of NEIGHBOURS) {
    const s = reader.at(x + dx, y + dy, z + dz)
    if (s >= 0 && !solid[s]) return true
  }
  return false
}

// Every tagged cell within `radius` of `origin` (integer block coordinates), as [d2, x, y, z, tag]
// sorted by squared distance, then x, y, z.
function scan (bot, tags, origin, radius) {
  const reader = new StateReader(bot)
  const r = Math.floor(radius)
  const r2 = radius * radius
  const { x: ox, y: oy, z: oz } = origin
  const yLo = Math.max(oy - r, reader.minY)
  const yHi = Math.min(oy + r, reader.maxY - 1)
  const sectionBase = Math.abs(reader.minY >> 4)
  const out = []
  for (let cx = (ox - r) >> 4; cx <= (ox + r) >> 4; cx++) {
    for (let cz = (oz - r) >> 4; cz <= (oz + r) >> 4; cz++) {
      const column = bot.world.getColumn(cx, cz)
      if (!column) continue
      const x0 = Math.max(cx * 16, ox - r); const x1 = Math.min(cx * 16 + 15, ox + r)
      const z0 = Math.max(cz * 16, oz - r); const z1 = Math.min(cz * 16 + 15, oz + r)
      for (let sy = yLo >> 4; sy <= yHi >> 4; sy++) {
        if (!mayHold(column.sections[sy + sectionBase], tags)) continue
        const y0 = Math.max(sy * 16, yLo); const y1 = Math.min(sy * 16 + 15, yHi)
        const p = { x: 0, y: 0, z: 0 }
        for (let x = x0; x <= x1; x++) {
          const dx2 = (x - ox) * (x - ox)
          if (dx2 > r2) continue
          p.x = x & 15
          for (let z = z0; z <= z1; z++) {
            const dxz2 = dx2 + (z - oz) * (z - oz)
            if (dxz2 > r2) continue
            p.z = z & 15
            for (let y = y0; y <= y1; y++) {
              const d2 = dxz2 + (y - oy) * (y - oy)
              if (d2 > r2) continue
              p.y = y
              const tag = tags[column.getBlockStateId(p)]
              if (tag) out.push([d2, x, y, z, tag])
            }
          }
        }
      }
    }
  }
  out.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3])
  return { found: out, reader }
}

// Up to `maxCount` blocks of `names` within `radius` of `origin`, nearest first; with `open`, only
// blocks with a face open to a non-solid cell.
function findBlocks (bot, names, origin, radius, maxCount, open) {
  const { found, reader } = scan(bot, tagTable(bot.registry, names), origin, radius)
  const solid = open ? solidTable(bot.registry) : null
  const out = []
  for (const [, x, y, z] of found) {
    if (out.length >= maxCount) break
    if (open && !exposed(reader, solid, x, y, z)) continue
    out.push([x, y, z])
  }
  return out
}

// Per name, the nearest block of it (open ones only with `open`), in one pass: {name: [x, y, z]}.
function nearestBlocks (bot, names, origin, radius, open) {
  const { found, reader } = scan(bot, tagTable(bot.registry, names), origin, radius)
  const solid = open ? solidTable(bot.registry) : null
  const out = {}
  let left = new Set(names.filter((n) => bot.registry.blocksByName[n])).size
  for (const [, x, y, z, tag] of found) {
    if (left === 0) break
    const name = names[tag - 1]
    if (name in out) continue
    if (open && !exposed(reader, solid, x, y, z)) continue
    out[name] = [x, y, z]
    left -= 1
  }
  return out
}

// Every cell of one chunk column between y0 and y1 (exclusive) as the bot holds it, in one call: a
// palette of [name, properties] and one palette index per cell, ordered x, then z, then y (the
// embedded store's order, so a test compares the server's terrain with the embedded world's cell by
// cell). null when the bot does not hold the column.
// [name, properties] of a state id (minecraft-data's mixed radix, the last property varying fastest)
function stateOf (registry, state) {
  const def = registry.blocksByStateId[state]
  if (!def) return ['unknown', { state }]
  const props = {}
  let rest = state - def.minStateId
  const states = def.states || []
  for (let i = states.length - 1; i >= 0; i--) {
    const s = states[i]
    const idx = rest % s.num_values
    rest = Math.floor(rest / s.num_values)
    if (s.type === 'bool') props[s.name] = idx === 0
    else if (s.type === 'int') props[s.name] = Number(s.values[idx])
    else props[s.name] = s.values[idx]
  }
  return [def.name, props]
}

function chunkCells (bot, cx, cz, y0, y1) {
  const column = bot.world.getColumn(cx, cz)
  if (!column) return null
  const palette = []
  const byState = new Map()
  const cells = []
  const pos = { x: 0, y: 0, z: 0 }
  for (pos.x = 0; pos.x < 16; pos.x++) {
    for (pos.z = 0; pos.z < 16; pos.z++) {
      for (pos.y = y0; pos.y < y1; pos.y++) {
        const state = column.getBlockStateId(pos)
        let i = byState.get(state)
        if (i === undefined) {
          i = palette.length
          palette.push(stateOf(bot.registry, state))
          byState.set(state, i)
        }
        cells.push(i)
      }
    }
  }
  return { palette, cells }
}

module.exports = { findBlocks, nearestBlocks, chunkCells }
