'use strict'
// craftbt's flying-squid plugin: the vanilla rules our capabilities touch, on our own test server.
//
// flying-squid 1.12 computes no crafting result, opens no furnace or barrel window, keeps no chest
// contents and drops a block's loot whatever the tool. This plugin, loaded by squid_server.js through
// flying-squid's `plugins` setting, takes over the window protocol (window_click, close_window,
// open_window, set_slot, window_items) and adds:
//   * the 2x2 grid of the player's inventory and the crafting table's 3x3 window: the result slot is
//     computed from minecraft-data's recipes for the served version (shaped, mirrored, shapeless),
//     taking it consumes one of each ingredient, a shift-click on it crafts as often as the inputs last;
//   * furnaces, blast furnaces and smokers: input/fuel/output slots, fuel burn time and cook time,
//     ticking whether a window is open or not (smelting recipes and fuels come from craftbt's own data
//     file, written into the settings by server.py: minecraft-data has none);
//   * chests, trapped chests and barrels that keep their 27 slots (in memory, for the server's life;
//     breaking the block drops them);
//   * block drops by harvest tool: a block with harvest tools drops nothing without one of them;
//   * an item used on an animal (use_entity, interact): an empty bucket milks an adult cow, which is
//     unharmed (craftbt's table world/loot.py ANIMAL_USES, written into the settings by server.py).
// The server announces the plugin in its brand ("flying-squid+craftbt/1 (feature,...)"), so a bot
// knows at once whether a window will ever open (adapter.js `serverLacks`).
//
// Every set_slot / window_items the server writes carries a state id that increases; a click that
// carries another id than the last one sent gets the whole window back (vanilla's rule, and the way
// mineflayer's _syncWindow asks for it).

const path = require('path')
// beds, hunger and eating, wandering animals, fallback animal loot (its own file: see its header)
const survival = require('./squid_survival')

const PLUGIN_VERSION = 1
const FEATURES = ['crafting', 'furnace', 'chest', 'barrel', 'harvest_drops', 'summon', ...survival.FEATURES]
const BRAND = `flying-squid+craftbt/${PLUGIN_VERSION} (${FEATURES.join(',')})`
const FURNACE_BLOCKS = { furnace: 'minecraft:furnace', blast_furnace: 'minecraft:blast_furnace', smoker: 'minecraft:smoker' }
const CHEST_BLOCKS = new Set(['chest', 'trapped_chest', 'barrel'])
const TICK_MS = 50
const DEBUG = !!process.env.CRAFTBT_SQUID_DEBUG
// A loaded server, on demand: window clicks and closes are handled this many ms late (in order), so a
// client that reads its own prediction instead of waiting for the server's word is caught (the e2e test
// of the inventory a window action reports).
const LAG_MS = Number(process.env.CRAFTBT_SQUID_WINDOW_LAG_MS) || 0
function lagged (handler) { return LAG_MS > 0 ? (packet) => setTimeout(() => handler(packet), LAG_MS) : handler }
function debug (...args) { if (DEBUG) console.log('[craftbt-vanilla]', ...args) }

let modulesDir = null
function req (name) {
  // flying-squid's own copies (from the node_modules squid_server.js was given), so items and
  // windows share its registry objects
  const from = modulesDir ? [path.join(modulesDir, 'flying-squid'), modulesDir] : undefined
  return require(require.resolve(name, from ? { paths: from } : undefined))
}

module.exports.server = function (serv, settings) {
  const rules = (settings && settings.craftbt) || {}
  modulesDir = rules.nodeModules || null
  const registry = serv.registry
  const Item = req('prismarine-item')(registry)
  const windowsLib = req('prismarine-windows')(registry)
  const smelting = new Map((rules.smelting || []).map(([input, output, count, ticks]) => [input, { output, count, ticks }]))
  const fuels = new Map(Object.entries(rules.fuels || {}))
  const recipes = indexRecipes(registry)
  const storage = new Map() // "x,y,z" -> { kind, slots: Item[], furnace state }
  serv.craftbt = { brand: BRAND, features: FEATURES, storage, uses: rules.uses || [] }

  function key (pos) { return `${pos.x},${pos.y},${pos.z}` }

  // -- crafting ------------------------------------------------------------------------------------
  function craftResult (grid, w) {
    // grid: Item|null per cell, row-major, w x w; returns { recipe } or null
    let minX = w; let minY = w; let maxX = -1; let maxY = -1
    const ids = []
    for (let i = 0; i < grid.length; i++) {
      if (!grid[i]) continue
      const x = i % w; const y = Math.floor(i / w)
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y)
      ids.push(grid[i].type)
    }
    if (ids.length === 0) return null
    const candidates = recipes.get(ids.sort((a, b) => a - b).join(','))
    if (!candidates) return null
    const bw = maxX - minX + 1; const bh = maxY - minY + 1
    const cell = (x, y) => { const it = grid[(minY + y) * w + minX + x]; return it ? it.type : null }
    for (const r of candidates) {
      if (!r.shape) return r
      if (r.shape.length !== bh || r.shape[0].length !== bw) continue
      const same = (mirror) => r.shape.every((row, y) => row.every((id, x) => id === cell(mirror ? bw - 1 - x : x, y)))
      if (same(false) || same(true)) return r
    }
    return null
  }

  // -- furnaces ------------------------------------------------------------------------------------
  function smeltFor (item) { return item ? smelting.get(registry.items[item.type].name) : undefined }
  function fuelTicks (item) { return item ? fuels.get(registry.items[item.type].name) : undefined }

  function tickFurnace (box) {
    const f = box.furnace
    const [input, fuel, output] = box.slots
    const before = JSON.stringify([f, box.slots.map(slotKey)])
    const recipe = smeltFor(input)
    const result = recipe && registry.itemsByName[recipe.output]
    const fits = result && (!output || (output.type === result.id && output.count + recipe.count <= output.stackSize))
    if (f.litTime > 0) f.litTime--
    if (f.litTime === 0 && fits && fuelTicks(fuel)) {
      f.litTime = f.litDuration = fuelTicks(fuel)
      fuel.count--
      if (fuel.count === 0) box.slots[1] = null
    }
    if (f.litTime > 0 && fits) {
      f.cookTotal = recipe.ticks
      f.progress++
      if (f.progress >= f.cookTotal) {
        f.progress = 0
        if (output) output.count += recipe.count
        else box.slots[2] = new Item(result.id, recipe.count)
        input.count--
        if (input.count === 0) box.slots[0] = null
      }
    } else if (f.progress > 0) {
      f.progress = f.litTime > 0 ? 0 : Math.max(0, f.progress - 2)
    }
    if (JSON.stringify([f, box.slots.map(slotKey)]) !== before) {
      for (const viewer of box.viewers) viewer.craftbtFurnaceChanged(box)
    }
  }

  setInterval(() => {
    for (const box of storage.values()) if (box.furnace) tickFurnace(box)
  }, TICK_MS).unref()

  function boxAt (pos, blockName) {
    const k = key(pos)
    let box = storage.get(k)
    const kind = FURNACE_BLOCKS[blockName] ? 'furnace' : 'chest'
    if (!box || box.kind !== kind) {
      box = { kind, pos, slots: new Array(kind === 'furnace' ? 3 : 27).fill(null), viewers: new Set() }
      if (kind === 'furnace') box.furnace = { litTime: 0, litDuration: 0, progress: 0, cookTotal: 200 }
      storage.set(k, box)
    }
    return box
  }

  serv.craftbtBoxAt = boxAt
  serv.craftbtFuel = (item) => fuelTicks(item)
  serv.craftbtSmelts = (item) => smeltFor(item)
  serv.craftbtCraftResult = craftResult
  serv.craftbtItem = Item
  serv.craftbtWindows = windowsLib

  // -- /summon and the least AI a test needs ---------------------------------------------------------
  // flying-squid's /summon spawns only minecraft-data type 'mob' (1.21.4's zombie is 'hostile', its pig
  // 'animal'), so it spawned nothing; this one spawns any living entity, optionally at x y z (~ relative).
  // Hostiles walk straight at the nearest survival player within FOLLOW_RANGE and hit it (HIT_DAMAGE
  // every HIT_COOLDOWN_MS) within reach; animals wander (squid_survival.js); a living entity that dies drops minecraft-data's
  // entityLoot (entries with dropChance 1 always, others by chance; squid_survival.js's table for an animal
  // it lacks) and disappears.
  const { Vec3 } = req('vec3')
  const LIVING = new Set(['hostile', 'animal', 'passive', 'water_creature', 'ambient', 'mob', 'living'])
  const FOLLOW_RANGE = 16
  const HIT_REACH = 1.6
  const HIT_DAMAGE = 2
  const HIT_COOLDOWN_MS = 1000
  const WALK_PER_TICK = 0.2 // blocks per 100 ms, about a zombie's 2.3 blocks/s
  const mobs = new Set()

  function coord (raw, base) {
    if (raw.startsWith('~')) return base + (raw.length > 1 ? Number(raw.slice(1)) : 0)
    return Number(raw)
  }

  function dropLoot (mob) {
    for (const [name, count] of survival.lootFor(rules.loot, registry, mob.name, Math.random)) {
      const item = registry.itemsByName[name]
      if (!item || count <= 0) continue
      serv.spawnObject(registry.entitiesByName.item.id, mob.world, mob.position.offset(0, 0.5, 0), {
        velocity: new Vec3(0, 0, 0), itemId: item.id, itemCount: count, pickupTime: 500, deathTime: 60 * 5 * 1000
      })
    }
  }

  function summon (def, world, position) {
    const mob = serv.initEntity('mob', def.id, world, position)
    mob.uuid = req('uuid-1345').v4()
    mob.name = def.name
    mob.kind = def.type
    mob.velocity = new Vec3(0, 0, 0)
    mob.pitch = 0
    mob.headPitch = 0
    mob.yaw = 0
    mob.gravity = new Vec3(0, 0, 0)
    mob.terminalvelocity = new Vec3(27, 27, 27)
    mob.friction = new Vec3(15, 0, 15)
    mob.size = new Vec3(def.width || 0.6, def.height || 1.8, def.width || 0.6)
    mob.health = def.type === 'hostile' ? 20 : 10
    mob.metadata = []
    mob.lastHit = 0
    const takeDamage = mob.takeDamage
    mob.takeDamage = (opts) => {
      takeDamage(opts)
      debug('hit', mob.name, mob.id, 'health', mob.health)
      if (mob.health <= 0 && mobs.has(mob)) {
        mobs.delete(mob)
        try {
          dropLoot(mob)
        } catch (err) {
          debug('loot failed', err && err.stack)
        }
        serv.destroyEntity(mob)
      }
    }
    mob.updateAndSpawn()
    mobs.add(mob)
    return mob
  }

  setInterval(() => {
    const now = Date.now()
    for (const mob of mobs) {
      if (mob.kind !== 'hostile') {
        survival.wander(mob, now, Vec3)
        continue
      }
      let target = null
      let best = FOLLOW_RANGE
      for (const player of serv.players) {
        if (player.gameMode !== 0 || player.world !== mob.world || !(player.health > 0)) continue
        const d = player.position.distanceTo(mob.position)
        if (d < best) { best = d; target = player }
      }
      if (!target) continue
      const flat = new Vec3(target.position.x - mob.position.x, 0, target.position.z - mob.position.z)
      const dist = Math.sqrt(flat.x * flat.x + flat.z * flat.z)
      if (dist > HIT_REACH * 0.8) {
        const step = Math.min(WALK_PER_TICK, dist - HIT_REACH * 0.8)
        mob.sendPosition(mob.position.plus(flat.scaled(step / dist)), true)
      }
      if (dist <= HIT_REACH && now - mob.lastHit >= HIT_COOLDOWN_MS) {
        mob.lastHit = now
        target.takeDamage({ damage: HIT_DAMAGE, velocity: flat.scaled(1 / Math.max(dist, 0.1)), animation: true })
      }
    }
  }, 100).unref()

  serv.craftbtSummon = summon
  survival.server(serv, { hostiles: () => [...mobs].filter((m) => m.kind === 'hostile') })
  serv.craftbtUses = survival.blockUses(serv, { Vec3 })
  survival.itemMetadata(serv)

  serv.once('asap', () => {
    serv.commands.add({
      base: 'summon',
      info: 'Summon an entity (craftbt: any living entity, optionally at x y z)',
      usage: '/summon <entity_name> [x y z]',
      onlyPlayer: true,
      op: true,
      parse (str) {
        const args = str.trim().split(/\s+/)
        if (!args[0] || (args.length !== 1 && args.length !== 4)) return false
        return { name: args[0].replace(/^minecraft:/, ''), at: args.slice(1) }
      },
      action ({ name, at }, ctx) {
        const def = registry.entitiesByName[name]
        if (!def) return `No entity named ${name}`
        const here = ctx.player.position
        const pos = at.length === 3 ? new Vec3(coord(at[0], here.x), coord(at[1], here.y), coord(at[2], here.z)) : here.clone()
        if ([pos.x, pos.y, pos.z].some((c) => !Number.isFinite(c))) return `bad position ${at.join(' ')}`
        if (LIVING.has(def.type)) summon(def, ctx.player.world, pos)
        else serv.spawnObject(def.id, ctx.player.world, pos, { velocity: new Vec3(0, 0, 0) })
      }
    })
  })

  serv.once('asap', () => {
    // after flying-squid's own chest handler (registered on the same event), so ours wins
    const open = (kind) => async ({ block, player }) => {
      if (player.crouching) return false
      player.craftbtOpen(kind, block)
      return true
    }
    serv.onBlockInteraction('crafting_table', open('crafting'))
    for (const name of Object.keys(FURNACE_BLOCKS)) serv.onBlockInteraction(name, open(name))
    for (const name of CHEST_BLOCKS) serv.onBlockInteraction(name, open(name))
  })
}

// Recipes by the sorted ids of their ingredients: a grid is matched against the few that use them.
// Shapes are trimmed to their non-empty rows and columns (minecraft-data pads some with null).
function indexRecipes (registry) {
  const index = new Map()
  for (const list of Object.values(registry.recipes)) {
    for (const raw of list) {
      let shape = null
      let ids
      if (raw.inShape) {
        let rows = raw.inShape.map((row) => row.map((c) => (c == null ? null : (typeof c === 'object' ? c.id : c))))
        rows = rows.map((row) => row.map((c) => (c === -1 ? null : c)))
        while (rows.length && rows[0].every((c) => c === null)) rows.shift()
        while (rows.length && rows[rows.length - 1].every((c) => c === null)) rows.pop()
        const width = Math.max(...rows.map((r) => r.length))
        rows = rows.map((r) => { const out = r.slice(); while (out.length < width) out.push(null); return out })
        let lo = 0; let hi = width - 1
        while (lo <= hi && rows.every((r) => r[lo] === null)) lo++
        while (hi >= lo && rows.every((r) => r[hi] === null)) hi--
        shape = rows.map((r) => r.slice(lo, hi + 1))
        ids = shape.flat().filter((c) => c !== null)
      } else if (raw.ingredients) {
        ids = raw.ingredients.map((c) => (typeof c === 'object' ? c.id : c))
      } else continue
      const k = ids.slice().sort((a, b) => a - b).join(',')
      if (!index.has(k)) index.set(k, [])
      index.get(k).push({ shape, result: raw.result })
    }
  }
  return index
}

module.exports.player = function (player, serv) {
  // flying-squid runs plugin player functions before its own inventory plugin: start once all ran
  const sendBrand = player.sendBrand
  if (sendBrand) player.sendBrand = (brand = BRAND) => sendBrand(brand)
  survival.playerEarly(player)
  fixEntityPackets(player, serv)
  player.once('asap', () => setupPlayer(player, serv))
  trackSneaking(player)
}

// -- entity packets flying-squid writes for older versions -------------------------------------------
// An entity that moves more than 7 blocks at once (1.21.2+):
// flying-squid sends such a move as entity_teleport with the fields of 1.21.1 (angle bytes, no velocity,
// no relative flags). From 1.21.2 that packet has more fields and does not serialize: the error stops
// every later packet to that client while its socket stays open for another 30 s (minecraft-protocol's
// close timeout). A bot logging in then never got the answer to its login look, and a bot online when
// another teleported was cut off. Vanilla sends these moves as sync_entity_position (1.21.2+), which
// carries what flying-squid knows (velocity 0, angles in degrees): send that instead.
// A player spawned for another (1.20.2+, one spawn_entity packet for every kind): flying-squid gives it no
// entity type, which went out as type 0 (an acacia boat in 1.21.4), so a bot never saw other players.
function fixEntityPackets (player, serv) {
  const types = serv.registry.protocol && serv.registry.protocol.play && serv.registry.protocol.play.toClient.types
  const syncs = !!(types && types.packet_sync_entity_position) // before 1.21.2 entity_teleport is right
  const playerType = serv.registry.entitiesByName.player && serv.registry.entitiesByName.player.id
  const degrees = (angle) => (angle || 0) * 360 / 256 // flying-squid keeps yaw and pitch as angle bytes
  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (name === 'spawn_entity' && params.type == null && serv.entities[params.entityId] &&
        serv.entities[params.entityId].type === 'player') {
      return write(name, { ...params, type: playerType })
    }
    if (name !== 'entity_teleport' || !syncs) return write(name, params)
    return write('sync_entity_position', {
      entityId: params.entityId,
      x: params.x,
      y: params.y,
      z: params.z,
      dx: 0,
      dy: 0,
      dz: 0,
      yaw: degrees(params.yaw),
      pitch: degrees(params.pitch),
      onGround: !!params.onGround
    })
  }
}

// -- sneaking (1.21.2+) ----------------------------------------------------------------------------
// From 1.21.2 a client sends sneaking in player_input's `shift` flag, no longer as entity_action 0/1,
// which is all flying-squid reads; so a sneaking bot that clicks a furnace with a block in hand opened
// the furnace (and its placement never came) instead of placing against it, as vanilla does.
function trackSneaking (player) {
  player._client.on('player_input', ({ inputs } = {}) => {
    player.crouching = !!(inputs && inputs.shift)
  })
}

// Vanilla attack damage (1.21.4) by weapon; anything else hits for 1, like a hand.
const WEAPON_DAMAGE = { sword: [4, 5, 6, 4, 7, 8], axe: [7, 9, 9, 7, 9, 10] }
const TIERS = ['wooden', 'stone', 'iron', 'golden', 'diamond', 'netherite']
function weaponDamage (name) {
  if (!name) return 1
  const [tier, kind] = name.split('_')
  const table = WEAPON_DAMAGE[kind]
  const i = TIERS.indexOf(tier)
  return table && i >= 0 ? table[i] : 1
}

function slotKey (it) { return it ? `${it.type}x${it.count}` : '-' }

function setupPlayer (player, serv) {
  const registry = serv.registry
  const Item = serv.craftbtItem
  const windowsLib = serv.craftbtWindows
  const { Vec3 } = req('vec3')
  const inv = player.inventory
  const client = player._client
  let stateId = 0
  // flying-squid's /give stores the count as the command's text ("1"), and the next merge onto that
  // stack concatenated it: 1 stick + 4 crafted became "14". Every count that enters the inventory is a number.
  const updateInventorySlot = inv.updateSlot.bind(inv)
  inv.updateSlot = (slot, item) => {
    if (item && typeof item.count !== 'number') item.count = Number(item.count)
    return updateInventorySlot(slot, item)
  }
  let quiet = false
  let nextWindowId = 0
  let open = null // { win, kind, box, gridSize }

  // every slot packet gets a fresh state id; while a click is applied, flying-squid's own echo of
  // each inventory change is held back (the click handler sends what the client got wrong)
  const write = client.write.bind(client)
  client.write = (name, params) => {
    if (name === 'set_slot' || name === 'window_items') {
      if (quiet) return
      stateId = (stateId + 1) & 0x7fffffff
      params = { ...params, stateId }
      debug(name, stateId, params.windowId, params.slot, JSON.stringify(params.item || (params.items && params.items.map((i) => i.itemCount || 0).join(' '))))
    }
    return write(name, params)
  }

  const notch = (it) => Item.toNotch(it || null)
  const sameItem = (a, b) => (a ? `${a.type}x${a.count}` : '-') === (b ? `${b.type}x${b.count}` : '-')
  const clone = (it) => (it ? new Item(it.type, it.count, it.metadata, it.nbt) : null)

  function sendSlot (windowId, slot, item) { client.write('set_slot', { windowId, slot, item: notch(item) }) }
  function sendCursor (item) { client.write('set_cursor_item', { contents: notch(item) }) }
  function sendAll (win) {
    client.write('window_items', { windowId: win === inv ? 0 : win.id, items: win.slots.map(notch), carriedItem: notch(win.selectedItem) })
  }

  // -- the window that is open: the inventory (id 0) or a container mirrored from inv and its box --
  function current (windowId) {
    if (windowId === 0) return { win: inv, kind: 'inventory', gridSize: 2, id: 0 }
    if (open && open.win.id === windowId) return open
    return null
  }

  function loadInventoryInto (win) {
    for (let i = 9; i <= 44; i++) {
      const slot = win.inventoryStart + i - 9
      win.slots[slot] = clone(inv.slots[i])
      if (win.slots[slot]) win.slots[slot].slot = slot
    }
  }

  function storeInventoryFrom (win) {
    for (let i = 9; i <= 44; i++) {
      const it = win.slots[win.inventoryStart + i - 9]
      const mine = clone(it)
      if (mine) mine.slot = i
      if (!sameItem(inv.slots[i], mine)) inv.updateSlot(i, mine) // flying-squid's listeners (held item), quiet
    }
  }

  function gridOf (ctx) {
    const n = ctx.gridSize
    const cells = []
    for (let i = 1; i <= n * n; i++) cells.push(ctx.win.slots[i])
    return cells
  }

  function updateResult (ctx) {
    if (!ctx.gridSize) return
    const r = serv.craftbtCraftResult(gridOf(ctx), ctx.gridSize)
    ctx.win.slots[0] = r ? new Item(r.result.id, r.result.count) : null
    if (ctx.win.slots[0]) ctx.win.slots[0].slot = 0
    ctx.recipe = r
  }

  function consumeGrid (ctx) {
    for (let i = 1; i <= ctx.gridSize * ctx.gridSize; i++) {
      const it = ctx.win.slots[i]
      if (!it) continue
      it.count--
      if (it.count <= 0) ctx.win.slots[i] = null
    }
  }

  // one craft taken onto the cursor (mode 0) or into the inventory (mode 1); false if it cannot
  function takeResult (ctx, shift) {
    const win = ctx.win
    const result = win.slots[0]
    if (!result) return false
    if (!shift) {
      const cur = win.selectedItem
      if (cur && (cur.type !== result.type || cur.count + result.count > cur.stackSize)) return false
      win.selectedItem = cur ? new Item(cur.type, cur.count + result.count, cur.metadata) : clone(result)
    } else {
      if (roomFor(win, result) < result.count) return false
      const moving = clone(result)
      moving.slot = 0
      win.slots[0] = moving
      win.fillAndDump(moving, win.inventoryStart, win.inventoryEnd, true)
    }
    consumeGrid(ctx)
    updateResult(ctx)
    return true
  }

  function roomFor (win, item) {
    let room = 0
    for (let i = win.inventoryStart; i < win.inventoryEnd; i++) {
      const it = win.slots[i]
      if (!it) room += item.stackSize
      else if (it.type === item.type) room += Math.max(0, it.stackSize - it.count)
    }
    return room
  }

  function furnaceSlotAccepts (ctx, slot, item) {
    // vanilla: output takes nothing from the player; fuel takes only fuel (input takes anything)
    if (ctx.kind === 'inventory' || !ctx.box || !ctx.box.furnace || !item) return true
    if (slot === 2) return false
    if (slot === 1) return ctx.fuelOk(item)
    return true
  }

  function dropItems (item, count) {
    if (!item || count <= 0) return
    // vanilla throws a dropped stack forward (0.3 blocks a tick, landing about two blocks ahead) and lets
    // nobody pick it up for 40 ticks, so the thrower, standing still, does not take it straight back
    // (flying-squid's pickup radius is 1.75): it appears two blocks ahead, where the throw would land
    const ahead = survival.lookVector(player, Vec3)
    const flat = Math.hypot(ahead.x, ahead.z) || 1
    const at = player.position.offset(2 * ahead.x / flat, 1.3, 2 * ahead.z / flat)
    serv.spawnObject(registry.entitiesByName.item.id, player.world, at, {
      velocity: new Vec3(0, 0, 0),
      itemId: item.type,
      itemDamage: item.metadata,
      itemCount: count,
      pickupTime: 2000,
      deathTime: 60 * 5 * 1000
    })
  }

  function applyClick (ctx, click) {
    const win = ctx.win
    const { slot, mode, mouseButton } = click
    if (ctx.gridSize && slot === 0) {
      if (mode === 0) takeResult(ctx, false)
      else if (mode === 1) { for (let n = 0; n < 64 && takeResult(ctx, true); n++); }
      return
    }
    if (mode === 5) return // drags: not modelled; the client is answered with the whole window
    if (mode === 0 && slot !== -999 && win.selectedItem && !furnaceSlotAccepts(ctx, slot, win.selectedItem)) return
    if (mode === 1 && slot >= win.inventoryStart && ctx.box && ctx.box.furnace) {
      // shift from the inventory into a furnace: fuel to the fuel slot, the rest to the input
      const it = win.slots[slot]
      if (!it) return
      const dest = ctx.fuelOk(it) && !ctx.smeltOk(it) ? 1 : 0
      const there = win.slots[dest]
      if (!there) { win.slots[dest] = it; it.slot = dest; win.slots[slot] = null } else if (there.type === it.type) {
        const n = Math.min(it.count, there.stackSize - there.count)
        there.count += n; it.count -= n
        if (it.count === 0) win.slots[slot] = null
      }
      return
    }
    const cursorBefore = clone(win.selectedItem)
    const slotBefore = slot >= 0 ? clone(win.slots[slot]) : null
    win.acceptClick({ ...click, item: slot >= 0 ? win.slots[slot] : null }, player.gameMode)
    if (slot === -999 && mode === 0 && cursorBefore) {
      dropItems(cursorBefore, cursorBefore.count - (win.selectedItem ? win.selectedItem.count : 0))
    } else if (mode === 4 && slotBefore) {
      const after = win.slots[slot]
      dropItems(slotBefore, slotBefore.count - (after ? after.count : 0))
    }
    void mouseButton
    if (ctx.gridSize && slot >= 1 && slot <= ctx.gridSize * ctx.gridSize) updateResult(ctx)
    else if (ctx.gridSize && mode !== 0) updateResult(ctx) // shift/number clicks may move grid items
  }

  client.removeAllListeners('window_click')
  client.on('window_click', lagged((click) => {
    const ctx = current(click.windowId)
    if (!ctx) return
    const win = ctx.win
    if (ctx !== open && open) return // clicks on the inventory while a container is open are stale
    if (win !== inv) loadInventoryInto(win)
    const before = win.slots.map(clone)
    const cursorBefore = clone(win.selectedItem)
    debug('click', JSON.stringify({ w: click.windowId, s: click.stateId, mine: stateId, slot: click.slot, b: click.mouseButton, m: click.mode, ch: (click.changedSlots || []).map((c) => [c.location, c.item && c.item.itemCount]), cur: click.cursorItem && click.cursorItem.itemCount }))
    quiet = true
    let threw = false
    try {
      applyClick(ctx, click)
    } catch (err) {
      threw = true // a click the window model refuses (an assertion): the client gets the whole window
      debug('click refused', err && err.message)
    } finally {
      quiet = false
    }
    if (win !== inv) {
      storeInventoryFromQuiet(win)
      if (ctx.box) {
        for (let i = 0; i < ctx.box.slots.length; i++) {
          ctx.box.slots[i] = clone(win.slots[i])
          if (ctx.box.slots[i]) ctx.box.slots[i].slot = i
        }
        ctx.box.changedBy = player
      }
    }
    const id = win === inv ? 0 : win.id
    if (click.mode === 5 || threw) {
      // mineflayer's _syncWindow (an empty drag end, state id -1) asks for the whole window; a click the
      // model refused gets it too. A merely stale id does not: mineflayer pipelines clicks outside the
      // crafting area, and a full window sent between two of them would undo its later predictions.
      sendAll(win)
      return
    }
    // what the client thinks now: the slots as they were plus the ones it says it changed
    const predicted = before.slice()
    for (const { location, item } of click.changedSlots || []) {
      if (location >= 0 && location < predicted.length) predicted[location] = Item.fromNotch(item)
    }
    const predictedCursor = Item.fromNotch(click.cursorItem)
    // a click on the crafting area always gets the result slot back (vanilla recomputes it; mineflayer
    // waits for it before its next click, so it goes last), any other click only what the client got wrong
    const craftArea = ctx.gridSize && click.slot >= 0 && click.slot <= ctx.gridSize * ctx.gridSize
    for (let i = 1; i < win.slots.length; i++) {
      if (!sameItem(predicted[i], win.slots[i])) sendSlot(id, i, win.slots[i])
    }
    if (!sameItem(predictedCursor, win.selectedItem)) sendCursor(win.selectedItem)
    if (craftArea || !sameItem(predicted[0], win.slots[0])) sendSlot(id, 0, win.slots[0])
    if (ctx.box && ctx.box.furnace) sendFurnaceProps(ctx)
  }))

  function storeInventoryFromQuiet (win) {
    quiet = true
    try { storeInventoryFrom(win) } finally { quiet = false }
  }

  // -- opening and closing -----------------------------------------------------------------------
  const WINDOW_TYPES = {
    crafting: 'minecraft:crafting',
    furnace: 'minecraft:furnace',
    blast_furnace: 'minecraft:blast_furnace',
    smoker: 'minecraft:smoker',
    chest: 'minecraft:generic_9x3',
    trapped_chest: 'minecraft:generic_9x3',
    barrel: 'minecraft:generic_9x3'
  }
  const TITLES = {
    crafting: 'container.crafting',
    furnace: 'container.furnace',
    blast_furnace: 'container.blast_furnace',
    smoker: 'container.smoker',
    chest: 'container.chest',
    trapped_chest: 'container.chest',
    barrel: 'container.barrel'
  }

  function closeOpen (returnGrid) {
    if (!open) return
    const ctx = open
    open = null
    if (ctx.box) ctx.box.viewers.delete(player)
    if (returnGrid) {
      // vanilla: the crafting grid and the cursor go back to the inventory (dropped when it is full)
      const leftovers = []
      if (ctx.gridSize) for (let i = 1; i <= 9; i++) if (ctx.win.slots[i]) leftovers.push(ctx.win.slots[i])
      if (ctx.win.selectedItem) leftovers.push(ctx.win.selectedItem)
      for (const it of leftovers) giveBack(clone(it))
    }
    // the client copies its own idea of the inventory when it closes: send the server's
    sendAll(inv)
  }

  // Puts `item` into the inventory as vanilla does (onto stacks of it first, then into empty slots);
  // `item.count` is left with what did not fit.
  function addToInventory (item) {
    for (let i = 9; i <= 44 && item.count > 0; i++) {
      const it = inv.slots[i]
      if (it && it.type === item.type && it.count < it.stackSize) {
        const n = Math.min(item.count, it.stackSize - it.count)
        it.count += n; item.count -= n
        inv.updateSlot(i, it)
      }
    }
    while (item.count > 0) {
      const empty = inv.firstEmptyInventorySlot()
      if (empty === null) break
      const n = Math.min(item.count, item.stackSize)
      inv.updateSlot(empty, new Item(item.type, n, item.metadata))
      item.count -= n
    }
  }

  function giveBack (item) {
    addToInventory(item)
    if (item.count > 0) dropItems(item, item.count)
  }

  client.removeAllListeners('close_window')
  client.on('close_window', lagged(({ windowId }) => {
    player.windowType = ''
    player.windowPos = undefined
    if (windowId === 0) {
      // the 2x2 grid and the cursor go back to the inventory
      const grid = []
      for (let i = 1; i <= 4; i++) if (inv.slots[i]) { grid.push(inv.slots[i]); inv.updateSlot(i, null) }
      if (inv.selectedItem) { grid.push(inv.selectedItem); inv.selectedItem = null }
      inv.slots[0] = null
      for (const it of grid) giveBack(clone(it))
      return
    }
    if (open && open.win.id === windowId) closeOpen(true)
  }))

  player.craftbtOpen = (kind, block) => {
    if (open) closeOpen(true)
    nextWindowId = nextWindowId % 100 + 1
    const type = WINDOW_TYPES[kind]
    const win = windowsLib.createWindow(nextWindowId, type, TITLES[kind])
    const ctx = { win, kind, id: nextWindowId, gridSize: kind === 'crafting' ? 3 : 0, box: null }
    ctx.fuelOk = (it) => fuels(it)
    ctx.smeltOk = (it) => smelts(it)
    if (kind !== 'crafting') {
      ctx.box = serv.craftbtBoxAt(block.position, kind)
      for (let i = 0; i < ctx.box.slots.length; i++) {
        win.slots[i] = clone(ctx.box.slots[i])
        if (win.slots[i]) win.slots[i].slot = i
      }
      ctx.box.viewers.add(player)
    }
    loadInventoryInto(win)
    open = ctx
    player.windowType = kind
    player.windowPos = block.position
    client.write('open_window', {
      windowId: win.id,
      inventoryType: windowsLib.windows[type].type,
      windowTitle: serv._createChatComponent({ translate: TITLES[kind] }).toNetworkFormat()
    })
    sendAll(win)
    if (ctx.box && ctx.box.furnace) sendFurnaceProps(ctx)
  }

  function fuels (it) { return !!(it && serv.craftbtFuel(it)) }
  function smelts (it) { return !!(it && serv.craftbtSmelts(it)) }

  function sendFurnaceProps (ctx) {
    const f = ctx.box.furnace
    const props = [f.litTime, f.litDuration, f.progress, f.cookTotal]
    props.forEach((value, property) => client.write('craft_progress_bar', { windowId: ctx.win.id, property, value }))
  }

  // a furnace ticked: the viewer sees its three slots and its bars
  player.craftbtFurnaceChanged = (box) => {
    if (!open || open.box !== box) return
    for (let i = 0; i < 3; i++) {
      if (!sameItem(open.win.slots[i], box.slots[i])) {
        open.win.slots[i] = clone(box.slots[i])
        if (open.win.slots[i]) open.win.slots[i].slot = i
        sendSlot(open.win.id, i, open.win.slots[i])
      }
    }
    sendFurnaceProps(open)
  }

  // a chest changed by another player: refresh this viewer
  player.on('disconnected', () => { if (open && open.box) open.box.viewers.delete(player) })

  // -- drops by harvest tool ---------------------------------------------------------------------
  player.on('dug_cancel', (data) => {
    const def = registry.blocks[data.block.type]
    const held = inv.slots[36 + player.heldItemSlot]
    if (def && def.harvestTools && !(held && def.harvestTools[held.type])) {
      if (Array.isArray(data.drops)) data.drops.length = 0
    }
    // a container's contents fall out when it breaks
    const k = `${data.position.x},${data.position.y},${data.position.z}`
    const box = serv.craftbt.storage.get(k)
    if (box) {
      serv.craftbt.storage.delete(k)
      for (const it of box.slots) if (it) dropItems(it, it.count)
    }
  })

  // a hit does a weapon's damage (flying-squid: 1 whatever the hand holds); vanilla attack damage
  player.on('attack_cancel', (data) => {
    const held = inv.slots[36 + player.heldItemSlot]
    data.damage = weaponDamage(held ? registry.items[held.type].name : null)
    // no knockback: flying-squid's (5 blocks) threw a pig out of reach of the next hit
    if (data.attackedEntity && data.attackedEntity.type !== 'player') data.velocity = new Vec3(0, 0, 0)
  })

  // an item used on an animal (interact: mouse 0; the attack, mouse 1, is flying-squid's pvp plugin): the
  // held item becomes what the table says (a bucket on a cow: a milk bucket), the rest of its stack stays
  client.on('use_entity', ({ mouse, target }) => {
    if (mouse !== 0) return
    const mob = serv.entities[target]
    const slot = 36 + player.heldItemSlot
    const held = inv.slots[slot]
    if (!mob || !held || mob.position.distanceTo(player.position) > 6) return
    const name = registry.items[held.type].name
    const use = serv.craftbt.uses.find(([animal, item]) => animal === mob.name && item === name)
    const gives = use && registry.itemsByName[use[2]]
    if (!gives) return
    if (held.count > 1) {
      inv.updateSlot(slot, new Item(held.type, held.count - 1, held.metadata))
      giveBack(new Item(gives.id, 1))
    } else {
      inv.updateSlot(slot, new Item(gives.id, 1))
    }
  })

  // flying-squid picks up one item of a dropped stack; take the whole stack
  player.collect = (entity) => {
    const item = new Item(entity.itemId, entity.itemCount || 1, entity.itemDamage)
    const total = item.count
    addToInventory(item)
    if (item.count === total) return
    entity._writeOthersNearby('collect', { collectedEntityId: entity.id, collectorEntityId: player.id, pickupItemCount: total - item.count })
    if (item.count > 0) {
      entity.itemCount = item.count
      return
    }
    entity.destroy()
  }

  survival.player(player, serv)
}
