'use strict'
// The Node half of craftbt's mineflayer body (world/mineflayer/body.py).
//
// The Python bridge (JSPyBridge) makes every call a synchronous round trip and
// runs JS event handlers on one shared Python thread, so this module keeps the
// bridge coarse: Python calls one function, `call(botId, method, argsJson)`,
// which never awaits anything and always returns one JSON string,
// {"ok": value} or {"error": {"code", "detail"}}. Long work (walking, digging,
// placing, crafting, ...) runs here as an "action" whose state Python polls
// with `actionState`; no Python callback is ever registered on a JS emitter.
// Error codes are BodyErrorCode values from world/body.py.

const path = require('path')
const blocksearch = require('./blocksearch')

let NODE_MODULES = null
const mods = {}

function load (name) {
  if (!mods[name]) mods[name] = require(NODE_MODULES ? path.join(NODE_MODULES, name) : name)
  return mods[name]
}

const REACH = 4.5
const ATTACK_REACH = 3.5
const EYE_HEIGHT = 1.62
const AIR = new Set(['air', 'cave_air', 'void_air'])
const FLUIDS = new Set(['water', 'lava', 'bubble_column'])
const REPLACEABLE = new Set([...AIR, ...FLUIDS, 'short_grass', 'tall_grass', 'fern', 'large_fern',
  'dead_bush', 'snow', 'seagrass', 'tall_seagrass', 'vine', 'fire', 'structure_void'])
// Items that place a block of another name.
const PLACES_AS = {
  wheat_seeds: 'wheat',
  beetroot_seeds: 'beetroots',
  carrot: 'carrots',
  potato: 'potatoes',
  melon_seeds: 'melon_stem',
  pumpkin_seeds: 'pumpkin_stem',
  redstone: 'redstone_wire',
  string: 'tripwire',
  sweet_berries: 'sweet_berry_bush'
}
const FACES = {
  up: [0, 1, 0],
  down: [0, -1, 0],
  north: [0, 0, -1],
  south: [0, 0, 1],
  west: [-1, 0, 0],
  east: [1, 0, 0]
}
const EQUIP_DESTINATIONS = { hand: 'hand', 'off-hand': 'off-hand', offhand: 'off-hand', head: 'head', torso: 'torso', legs: 'legs', feet: 'feet' }
const FURNACES = new Set(['furnace', 'blast_furnace', 'smoker'])
const CONTAINERS = new Set(['chest', 'trapped_chest', 'barrel', 'ender_chest', 'dispenser', 'dropper', 'hopper'])
const ALWAYS_EDIBLE = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit', 'honey_bottle', 'milk_bucket', 'potion', 'suspicious_stew'])
const CHAT_LIMIT = 256
const CHAT_LOG_LIMIT = 500
// How long a new bot waits for the server's answer to its login look (see settleLogin).
const LOGIN_SETTLE_MS = 1500
const LOGIN_NUDGE_MS = 100

class BodyErr extends Error {
  constructor (code, detail, retryable = false) {
    super(detail)
    this.code = code
    this.detail = detail
    this.retryable = retryable
  }
}

const bots = new Map()
let nextBotId = 1

// -- module setup --------------------------------------------------------------

// -- the parent's death ends this process ----------------------------------------
// JSPyBridge's Node is a plain child of Python: a Python killed by SIGKILL runs no atexit
// handler, and the orphan kept its bots on the server. When Python goes, the bridge's stdin
// ends and our parent pid changes; either one makes every bot leave the server, then exit.
let watchingParent = false
function leaveAndExit (why) {
  for (const id of Array.from(bots.keys())) {
    try { quit(id, `craftbt: ${why}`) } catch (e) {}
  }
  setTimeout(() => process.exit(0), 500) // long enough for the quit packets to leave
}
function watchParent () {
  if (watchingParent) return
  watchingParent = true
  const parent = process.ppid
  process.stdin.on('end', () => leaveAndExit('the Python side closed the bridge'))
  setInterval(() => {
    if (process.ppid !== parent) leaveAndExit('the Python process is gone')
  }, 500).unref()
}

function init (nodeModules) {
  watchParent()
  NODE_MODULES = nodeModules || null
  const versions = {}
  for (const name of ['mineflayer', 'mineflayer-pathfinder']) {
    versions[name] = require(NODE_MODULES ? path.join(NODE_MODULES, name, 'package.json') : `${name}/package.json`).version
    load(name)
  }
  versions.node = process.versions.node
  return JSON.stringify(versions)
}

function createBot (optionsJson) {
  const opts = JSON.parse(optionsJson)
  const mineflayer = load('mineflayer')
  const { pathfinder } = load('mineflayer-pathfinder')
  const bot = mineflayer.createBot({
    host: opts.host,
    port: opts.port,
    username: opts.username,
    version: opts.version === 'auto' ? false : opts.version, // false: mineflayer pings the server for it
    auth: opts.auth || 'offline',
    hideErrors: true,
    logErrors: false,
    checkTimeoutInterval: opts.checkTimeoutMs || 30000
  })
  const settleMs = Number.isFinite(opts.loginSettleMs) ? opts.loginSettleMs : LOGIN_SETTLE_MS
  bot.loadPlugin(pathfinder)
  const id = nextBotId++
  const st = {
    id,
    bot,
    spawned: false,
    ended: false,
    endReason: null,
    kicked: null,
    lastError: null,
    dead: false,
    forcedMoves: 0,
    settled: null,
    actions: new Map(),
    nextActionId: 1,
    chat: [],
    chatBase: 0,
    window: null,
    windowPos: null,
    windowKind: null,
    opLevels: new Map(),
    serverBrand: null
  }
  bots.set(id, st)
  bot.once('spawn', () => {
    st.spawned = true
    const { Movements } = load('mineflayer-pathfinder')
    const moves = new Movements(bot)
    // A body's goto only walks: digging or pillaring on the way would change
    // the world behind the caller's back and spend its inventory.
    moves.canDig = false
    moves.allow1by1towers = false
    moves.scafoldingBlocks = []
    bot.pathfinder.setMovements(moves)
    bot.pathfinder.thinkTimeout = 5000
    // Bounds the A* cost above the straight-line estimate, so an unreachable goal
    // fails fast with noPath instead of searching an endless plane until the timeout.
    bot.pathfinder.searchRadius = 64
    settleLogin(st, settleMs)
  })
  // Operator rights: the server announces the permission level with an entity status (24..28 = level
  // 0..4) for the player's own entity, right after login; mineflayer keeps no copy of it.
  bot._client.on('custom_payload', (p) => readBrand(st, p))
  bot._client.on('entity_status', (p) => {
    if (p.entityStatus >= 24 && p.entityStatus <= 28) st.opLevels.set(p.entityId, p.entityStatus - 24)
  })
  bot.on('forcedMove', () => { st.forcedMoves += 1 })
  bot.on('messagestr', (message, position) => {
    st.chat.push({ message, position, at: Date.now() })
    if (st.chat.length > CHAT_LOG_LIMIT) {
      st.chat.shift()
      st.chatBase += 1
    }
  })
  bot.on('kicked', (reason) => { st.kicked = typeof reason === 'string' ? reason : JSON.stringify(reason) })
  bot.on('error', (err) => { st.lastError = String(err && err.message ? err.message : err) })
  bot.on('death', () => {
    st.dead = true
    failAll(st, 'died', 'the bot died')
  })
  bot.on('spawn', () => { st.dead = false })
  bot.on('windowClose', (win) => {
    if (st.window && win === st.window) clearWindow(st)
  })
  bot.on('end', (reason) => {
    st.ended = true
    st.endReason = st.kicked ? `kicked: ${st.kicked}` : String(reason || st.lastError || 'connection closed')
    clearWindow(st)
    failAll(st, 'body_disconnected', `disconnected: ${st.endReason}`)
  })
  return JSON.stringify({ ok: id })
}

// flying-squid finishes a login only on the client's first 'look' or 'flying'
// packet: then it re-sends the login position (undoing any teleport or walk
// made since), starts sending the chunks beyond the first 6x6 and starts
// sending chunks on moves. A bot that stands still sends neither packet (only
// 'position' every second), so that moment would come at its first look at a
// block, mid-action. So a new bot turns its head by a hair until the server
// answers with a position packet ('forcedMove'), or LOGIN_SETTLE_MS pass (a
// vanilla server does not answer; its login needs no such step).
function settleLogin (st, settleMs) {
  const bot = st.bot
  const before = st.forcedMoves
  const started = Date.now()
  let sign = 1
  const timer = setInterval(() => {
    if (st.ended || st.forcedMoves > before || Date.now() - started >= settleMs) {
      clearInterval(timer)
      st.settled = st.forcedMoves > before ? 'answered' : (st.ended ? 'ended' : 'timeout')
      return
    }
    sign = -sign
    bot.look(bot.entity.yaw + sign * 0.01, bot.entity.pitch, true).catch(() => {})
  }, LOGIN_NUDGE_MS)
  timer.unref()
}

function failAll (st, code, detail) {
  for (const a of st.actions.values()) settle(a, 'failed', { code, detail, retryable: false }, {})
}

function clearWindow (st) {
  st.window = null
  st.windowPos = null
  st.windowKind = null
}

// -- actions -------------------------------------------------------------------

function settle (a, status, error, result) {
  if (a.status !== 'running') return
  a.status = status
  a.error = error
  a.result = result || {}
  a.finishedAt = Date.now()
  if (a.cleanup) {
    try { a.cleanup() } catch (e) {}
  }
}

function toErr (err, fallback) {
  if (err instanceof BodyErr) return { code: err.code, detail: err.detail, retryable: err.retryable }
  const msg = String(err && err.message ? err.message : err)
  if (/disconnect|socket|ECONNRESET|EPIPE|ended/i.test(msg)) return { code: 'body_disconnected', detail: msg, retryable: false }
  if (/timeout|timed out|did not/i.test(msg)) return { code: 'timeout', detail: msg, retryable: true }
  return { code: fallback, detail: msg, retryable: false }
}

// Registers a running action and starts `run` on the next microtask, so the
// bridge call that started it returns at once.
function launch (st, kind, fallbackCode, run) {
  const a = {
    id: st.nextActionId++,
    kind,
    status: 'running',
    error: null,
    result: {},
    startedAt: Date.now(),
    firstMoveAt: null,
    finishedAt: null,
    onCancel: null,
    cleanup: null
  }
  st.actions.set(a.id, a)
  Promise.resolve()
    .then(() => run(a))
    .then((result) => settle(a, 'succeeded', null, result),
      async (err) => {
        const error = toErr(err, fallbackCode)
        // a window action that failed half-way leaves mineflayer's copy of the inventory as it predicted
        // (a log in the crafting grid, an item on the cursor): re-read it from the server first
        const resynced = WINDOW_ACTIONS.has(kind) && a.status === 'running' && !st.ended ? await resyncInventory(st) : null
        settle(a, 'failed', error, resynced === null ? {} : { inventoryResynced: resynced })
      })
  return { actionId: a.id, kind }
}

const WINDOW_ACTIONS = new Set(['craft', 'open_container', 'container_put', 'container_take', 'close_container'])
const RESYNC_MS = 2000

// Closes any window and asks the server for the whole inventory (a click with an impossible state id,
// mineflayer's _syncWindow; vanilla and craftbt's plugin answer with window_items). True when the answer
// came within RESYNC_MS; flying-squid without the plugin never answers.
async function resyncInventory (st) {
  const bot = st.bot
  if (bot.currentWindow) {
    try { bot.closeWindow(bot.currentWindow) } catch (e) {}
  }
  clearWindow(st)
  if (typeof bot._syncWindow !== 'function') return false
  return syncWithin(bot, bot.inventory)
}

// True when the server sent `win` back whole within RESYNC_MS of a resync click.
async function syncWithin (bot, win) {
  let timer = null
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(false), RESYNC_MS) })
  try {
    return await Promise.race([bot._syncWindow(win).then(() => true, () => false), late])
  } finally {
    clearTimeout(timer)
  }
}

// The server's word on the inventory, before an action that changed it reports success. mineflayer
// predicts every click and waits for the server only on a crafting area's result, so a toss, a deposit or
// the put-away clicks of a craft resolved on the prediction while the server's set_slot packets (which
// may say otherwise) were still on the way, and the acceptance check read the prediction. A resync click
// on the window that is open gets the whole window back (vanilla's rule; craftbt's plugin follows it);
// TCP keeps it behind the action's own packets, so the answer is the state after them. flying-squid
// without the plugin never answers one: there nothing can be confirmed and the prediction stands.
async function confirmInventory (st) {
  const bot = st.bot
  const features = serverFeatures(st)
  if ((features !== null && !PLUGIN_FEATURES.test(brandOf(st))) || typeof bot._syncWindow !== 'function') return false
  if (!await syncWithin(bot, bot.currentWindow || bot.inventory)) {
    throw new BodyErr('timeout', `the server did not confirm the inventory within ${RESYNC_MS} ms`, true)
  }
  return true
}

function startResyncInventory (st) {
  return launch(st, 'resync_inventory', 'timeout', async () => {
    const ok = await resyncInventory(st)
    if (!ok) throw new BodyErr('timeout', 'the server did not send the inventory back', true)
    return { inventory: allItems(st.bot).map(stack) }
  })
}

function actionState (st, { id }) {
  const a = st.actions.get(id)
  if (!a) throw new BodyErr('invalid_argument', `no action ${id}`)
  // Python keeps the final state, so a settled action is reported once and forgotten.
  if (a.status !== 'running') st.actions.delete(id)
  return {
    status: a.status,
    error: a.error,
    result: a.result,
    startedAt: a.startedAt,
    firstMoveAt: a.firstMoveAt,
    finishedAt: a.finishedAt
  }
}

function cancelAction (st, { id, reason }) {
  const a = st.actions.get(id)
  if (!a || a.status !== 'running') return false
  const onCancel = a.onCancel
  settle(a, 'cancelled', { code: 'cancelled', detail: reason || 'cancelled', retryable: false }, {})
  if (onCancel) {
    try { onCancel() } catch (e) {}
  }
  return true
}

// -- helpers -------------------------------------------------------------------

let Vec3 = null

function vec (x, y, z) {
  if (!Vec3) {
    // vec3 is mineflayer's own dependency: resolve it from there, wherever npm put it.
    const from = NODE_MODULES ? [path.join(NODE_MODULES, 'mineflayer')] : undefined
    Vec3 = require(require.resolve('vec3', from ? { paths: from } : undefined)).Vec3
  }
  return new Vec3(x, y, z)
}

function posOf (p) { return { x: p.x, y: p.y, z: p.z } }

function eyes (bot) { return bot.entity.position.offset(0, EYE_HEIGHT, 0) }

function blockInfo (block, x, y, z) {
  if (!block) return null
  return { name: block.name, pos: [x, y, z], state: block.getProperties ? block.getProperties() : {} }
}

function loadedBlock (bot, x, y, z) {
  const block = bot.blockAt(vec(x, y, z))
  if (!block) throw new BodyErr('out_of_reach', `block at ${x},${y},${z} is not loaded`, true)
  return block
}

function reachTo (bot, point) { return eyes(bot).distanceTo(point) }

function requireReach (bot, point, what, limit = REACH) {
  const d = reachTo(bot, point)
  if (d > limit) throw new BodyErr('out_of_reach', `${what} is ${d.toFixed(2)} blocks away (reach ${limit})`, true)
}

function itemDef (bot, name) {
  const def = bot.registry.itemsByName[name]
  if (!def) throw new BodyErr('unknown_item', `unknown item '${name}'`)
  return def
}

function allItems (bot) {
  // while a container is open mineflayer keeps the player's items in the window's inventory section and
  // copies them into bot.inventory only when it closes: read them where they are (a deposit shows at once)
  const win = bot.currentWindow
  const items = win && win.inventoryStart !== undefined
    ? win.slots.slice(win.inventoryStart, win.inventoryEnd).filter(Boolean)
    : bot.inventory.items()
  const off = bot.inventory.slots[45]
  if (off) items.push(off)
  return items
}

function countOf (bot, name) {
  return allItems(bot).filter((i) => i.name === name).reduce((n, i) => n + i.count, 0)
}

function findItem (bot, name) {
  itemDef(bot, name)
  const item = allItems(bot).find((i) => i.name === name)
  if (!item) throw new BodyErr('missing_item', `no ${name} in inventory`)
  return item
}

function stack (item) { return item ? { name: item.name, count: item.count, slot: item.slot } : null }

function biomeName (bot) {
  const block = bot.blockAt(bot.entity.position)
  const biome = block && block.biome
  return biome && biome.name ? biome.name : null
}

function notchYaw (bot) { return ((180 - bot.entity.yaw * 180 / Math.PI) % 360 + 360) % 360 }

function windowSlots (st) {
  const win = st.window
  if (!win) return {}
  if (st.windowKind === 'furnace' || FURNACES.has(st.windowKind)) {
    const one = (it) => (it ? [stack(it)] : [])
    return { input: one(win.inputItem()), fuel: one(win.fuelItem()), output: one(win.outputItem()) }
  }
  return { container: win.containerItems().map(stack) }
}

function windowInfo (st) {
  if (!st.window) return null
  return { kind: st.windowKind, pos: st.windowPos, slots: windowSlots(st) }
}

function timeOfDay (bot) { return Number(bot.time.timeOfDay) }

function nowTicks (bot) { return Number(bot.time.age) }

// An ageable mob's baby flag: entity metadata 16 on 1.20.2 and later (Entity 0-7, LivingEntity 8-14, Mob 15,
// AgeableMob 16); a server that sends none (flying-squid) has no babies.
const BABY_METADATA = 16
function isBaby (e) {
  return entityKind(e) === 'passive' && Array.isArray(e.metadata) && e.metadata[BABY_METADATA] === true
}

function entityKind (e) {
  if (e.name === 'item') return 'item'
  if (e.type === 'player') return 'player'
  if (e.type === 'hostile') return 'hostile'
  if (['passive', 'animal', 'water_creature', 'ambient'].includes(e.type)) return 'passive'
  return 'other'
}

// -- observation ---------------------------------------------------------------

function snapshot (st) {
  const bot = st.bot
  const e = bot.entity
  return {
    tick: nowTicks(bot),
    position: posOf(e.position),
    yaw: notchYaw(bot),
    biome: biomeName(bot),
    pitch: -e.pitch * 180 / Math.PI,
    health: bot.health,
    food: bot.food,
    saturation: bot.foodSaturation,
    timeOfDay: timeOfDay(bot),
    inventory: allItems(bot).map(stack),
    heldItem: bot.heldItem ? bot.heldItem.name : null,
    window: windowInfo(st),
    dimension: String(bot.game.dimension || 'overworld').replace(/^minecraft:/, ''),
    gameMode: bot.game.gameMode,
    weather: bot.thunderState > 0 ? 'thunder' : (bot.isRaining ? 'rain' : 'clear'),
    opLevel: st.opLevels.has(e.id) ? st.opLevels.get(e.id) : null
  }
}

function status (st) {
  const bot = st.bot
  const loaded = st.spawned && !st.ended && st.settled !== null && !!bot.entity && !!bot.blockAt(bot.entity.position.offset(0, -1, 0))
  return {
    spawned: st.spawned,
    loaded,
    ended: st.ended,
    reason: st.endReason,
    kicked: st.kicked,
    error: st.lastError,
    dead: st.dead,
    settled: st.settled,
    forcedMoves: st.forcedMoves,
    serverBrand: brandOf(st),
    version: bot.version || null,
    serverFeatures: serverFeatures(st)
  }
}

function blockAt (st, { x, y, z }) {
  return blockInfo(st.bot.blockAt(vec(x, y, z)), x, y, z)
}

// One chunk column's cells in one call (blocksearch.js chunkCells): what the terrain test compares.
function chunkCells (st, { cx, cz, y0, y1 }) {
  return blocksearch.chunkCells(st.bot, cx, cz, y0, y1)
}

function isExposed (bot, p) {
  for (const [dx, dy, dz] of Object.values(FACES)) {
    const n = bot.blockAt(p.offset(dx, dy, dz))
    if (n && n.boundingBox !== 'block') return true
  }
  return false
}

function blockNames (bot, names) {
  for (const n of names) {
    if (!bot.registry.blocksByName[n]) throw new BodyErr('unknown_block', `unknown block '${n}'`)
  }
  return names
}

// Nearest first from the block the bot stands in (what the embedded world measures from), ties by x, y, z
// as the embedded world breaks them; blocksearch.js reads the chunks in one pass.
function findBlocks (st, { names, radius, maxCount, exposed }) {
  const bot = st.bot
  return blocksearch.findBlocks(bot, blockNames(bot, names), bot.entity.position.floored(), radius, maxCount, !!exposed)
}

// A survey in one bridge call: per name, the block findBlocks([name], radius, 1, exposed) returns.
// A name this version lacks is left out (nowhere near) instead of failing the whole survey.
function nearestBlocks (st, { names, radius, exposed }) {
  const bot = st.bot
  return blocksearch.nearestBlocks(bot, [...new Set(names)], bot.entity.position.floored(), radius, !!exposed)
}

// The same search through mineflayer's own bot.findBlocks (what findBlocks did before blocksearch.js):
// the reference the e2e tests compare against and the baseline bench_ttfa_mineflayer.py measures.
function findBlocksMineflayer (st, { names, radius, maxCount, exposed }) {
  const bot = st.bot
  const ids = blockNames(bot, names).map((n) => bot.registry.blocksByName[n].id)
  const origin = bot.entity.position.floored()
  const found = bot.findBlocks({ matching: ids, maxDistance: radius, count: Number.MAX_SAFE_INTEGER })
    .sort((a, b) => a.distanceSquared(origin) - b.distanceSquared(origin) || a.x - b.x || a.y - b.y || a.z - b.z)
  return (exposed ? found.filter((p) => isExposed(bot, p)) : found).slice(0, maxCount).map((p) => [p.x, p.y, p.z])
}

function entities (st, { radius, kind }) {
  return nearbyEntities(st.bot, radius, kind)
}

// Everything body.py reads in a tick in one round trip: the snapshot, every entity within
// `entityRadius` (Python filters by radius and kind from it while the tick lasts) and the state of
// every action (a settled one is reported once, as actionState does).
function view (st, { entityRadius }) {
  const actions = {}
  for (const id of Array.from(st.actions.keys())) actions[id] = actionState(st, { id })
  return { ...snapshot(st), entities: nearbyEntities(st.bot, entityRadius, null), actions }
}

function nearbyEntities (bot, radius, kind) {
  const here = bot.entity.position
  const out = []
  for (const e of Object.values(bot.entities)) {
    if (e === bot.entity || !e.position || e.position.distanceTo(here) > radius) continue
    if (kind && entityKind(e) !== kind) continue
    let item = null
    if (e.name === 'item' && e.getDroppedItem) {
      // The item's metadata arrives in a later packet; until then getDroppedItem() throws (craftbt leaves fix).
      let d = null
      try { d = e.getDroppedItem() } catch (err) { d = null }
      if (d) item = { name: d.name, count: d.count }
    }
    out.push({
      id: e.id,
      name: e.name || e.username || 'unknown',
      kind: entityKind(e),
      position: posOf(e.position),
      health: typeof e.health === 'number' ? e.health : null,
      item,
      baby: isBaby(e)
    })
  }
  out.sort((a, b) => Math.hypot(a.position.x - here.x, a.position.y - here.y, a.position.z - here.z) -
    Math.hypot(b.position.x - here.x, b.position.y - here.y, b.position.z - here.z))
  return out
}

function equipment (st) {
  const bot = st.bot
  const s = bot.inventory.slots
  return { hand: stack(bot.heldItem), 'off-hand': stack(s[45]), head: stack(s[5]), torso: stack(s[6]), legs: stack(s[7]), feet: stack(s[8]) }
}

function lightLevel (st, { x, y, z }) {
  const bot = st.bot
  const p = x === null || x === undefined ? bot.entity.position.floored() : vec(x, y, z)
  const block = bot.blockAt(p)
  if (!block) throw new BodyErr('out_of_reach', `block at ${p} is not loaded`, true)
  const t = timeOfDay(bot)
  const night = t >= 13000 && t < 23000
  const sky = Math.max(0, (block.skyLight || 0) - (night ? 11 : 0))
  return Math.max(block.light || 0, sky)
}

function chatLog (st, { since }) {
  const start = Math.max(0, since - st.chatBase)
  return { next: st.chatBase + st.chat.length, messages: st.chat.slice(start) }
}

// -- action starters: validate synchronously, then launch ----------------------

// mineflayer's physics tick moves the bot first and then emits 'physicsTick', where the pathfinder
// computes a new goal's path and sets the controls: left alone, a goal set now is planned at the next
// tick and walked at the one after (two ticks, ~100 ms to the first movement). Running the
// pathfinder's tick handler once right here computes the path at dispatch (its own A* budget of
// tickTimeout ms, a partial path continues on later ticks) and sets the controls, so the very next
// physics tick moves the bot. The handler is idempotent within a tick; if this pathfinder version
// names it otherwise, nothing is primed and the goal is planned at the next tick as before.
function planNow (bot) {
  const tick = bot.listeners('physicsTick').find((f) => f.name === 'monitorMovement')
  if (tick) tick()
}

// `planAtDispatch: false` leaves the planning to the next tick: the baseline bench_ttfa_mineflayer.py measures.
function startGoto (st, { x, y, z, tolerance, planAtDispatch = true }) {
  const bot = st.bot
  const { goals } = load('mineflayer-pathfinder')
  for (const a of st.actions.values()) {
    if (a.kind === 'goto' && a.status === 'running') throw new BodyErr('nav_busy', `goto ${a.id} is still running`, true)
  }
  const goal = new goals.GoalNear(x, y, z, tolerance)
  return launch(st, 'goto', 'no_path', (a) => new Promise((resolve, reject) => {
    const here = () => bot.entity.position.floored()
    if (goal.isEnd(here())) return resolve({ position: posOf(bot.entity.position), moved: false })
    const start = bot.entity.position.clone()
    const onMove = () => {
      if (!a.firstMoveAt && bot.entity.position.distanceTo(start) > 0.01) a.firstMoveAt = Date.now()
    }
    const onReached = () => {
      // pathfinder 2.4.5 can report the end of a path it could not finish.
      if (goal.isEnd(here())) resolve({ position: posOf(bot.entity.position), moved: true })
      else reject(new BodyErr('no_path', `stopped at ${here()} short of ${x},${y},${z}`, true))
    }
    const onUpdate = (r) => {
      if (r.status === 'noPath') reject(new BodyErr('no_path', `no path to ${x},${y},${z} within ${tolerance}`, true))
      else if (r.status === 'timeout') reject(new BodyErr('no_path', `path search to ${x},${y},${z} timed out`, true))
      else if (r.status === 'success' && r.path.length === 0 && goal.isEnd(here())) onReached()
    }
    const onGoal = (g) => { if (g !== goal) reject(new BodyErr('preempted', 'the navigation goal was replaced')) }
    const onStop = () => reject(new BodyErr('cancelled', 'navigation stopped'))
    bot.on('move', onMove)
    bot.on('goal_reached', onReached)
    bot.on('path_update', onUpdate)
    bot.on('goal_updated', onGoal)
    bot.on('path_stop', onStop)
    a.cleanup = () => {
      bot.removeListener('move', onMove)
      bot.removeListener('goal_reached', onReached)
      bot.removeListener('path_update', onUpdate)
      bot.removeListener('goal_updated', onGoal)
      bot.removeListener('path_stop', onStop)
      if (bot.pathfinder.goal === goal) bot.pathfinder.setGoal(null)
    }
    a.onCancel = () => { if (bot.pathfinder.goal === goal) bot.pathfinder.setGoal(null) }
    bot.pathfinder.setGoal(goal)
    if (planAtDispatch) planNow(bot)
  }))
}

function startDig (st, { x, y, z }) {
  const bot = st.bot
  const block = loadedBlock(bot, x, y, z)
  if (AIR.has(block.name) || FLUIDS.has(block.name)) throw new BodyErr('not_diggable', `${block.name} at ${x},${y},${z} cannot be dug`)
  if (!block.diggable) throw new BodyErr('not_diggable', `${block.name} is unbreakable`)
  requireReach(bot, block.position.offset(0.5, 0.5, 0.5), `${block.name} at ${x},${y},${z}`)
  const name = block.name
  return launch(st, 'dig', 'not_diggable', async (a) => {
    a.onCancel = () => bot.stopDigging()
    await bot.dig(block, true)
    const after = bot.blockAt(block.position)
    if (after && !AIR.has(after.name) && after.name === name) throw new BodyErr('not_diggable', `${name} is still there`, true)
    return { block: name, pos: [x, y, z] }
  })
}

const OPENS_ON_CLICK = new Set(['crafting_table', 'furnace', 'blast_furnace', 'smoker', 'chest', 'trapped_chest',
  'barrel', 'ender_chest', 'anvil', 'enchanting_table', 'brewing_stand', 'hopper', 'dispenser', 'dropper',
  'lever', 'loom', 'smithing_table', 'stonecutter', 'grindstone', 'cartography_table', 'note_block'])
function opensOnClick (name) {
  return OPENS_ON_CLICK.has(name) || /(_bed|_door|_trapdoor|_fence_gate|_button|shulker_box)$/.test(name)
}

function startPlace (st, { item, x, y, z, face }) {
  const bot = st.bot
  const off = FACES[face]
  if (!off) throw new BodyErr('invalid_argument', `unknown face '${face}'`)
  const inv = findItem(bot, item)
  const placesAs = PLACES_AS[item] || item
  const blockDef = bot.registry.blocksByName[placesAs]
  if (!blockDef) throw new BodyErr('not_placeable', `${item} is not a block`)
  const ref = loadedBlock(bot, x, y, z)
  if (REPLACEABLE.has(ref.name)) throw new BodyErr('no_reference_block', `${ref.name} at ${x},${y},${z} cannot be placed against`)
  const tx = x + off[0]; const ty = y + off[1]; const tz = z + off[2]
  const target = loadedBlock(bot, tx, ty, tz)
  if (!REPLACEABLE.has(target.name)) throw new BodyErr('occupied', `${target.name} occupies ${tx},${ty},${tz}`)
  if (blockDef.boundingBox === 'block') {
    const p = bot.entity.position
    const w = 0.3
    const overlaps = p.x + w > tx && p.x - w < tx + 1 && p.z + w > tz && p.z - w < tz + 1 && p.y < ty + 1 && p.y + 1.8 > ty
    if (overlaps) throw new BodyErr('occupied', `the bot stands in ${tx},${ty},${tz}`, true)
  }
  const facePoint = ref.position.offset(0.5 + off[0] * 0.5, 0.5 + off[1] * 0.5, 0.5 + off[2] * 0.5)
  requireReach(bot, facePoint, `the ${face} face of ${ref.name} at ${x},${y},${z}`)
  // a block that opens on a click (a furnace, a table, a chest...) takes a placement only from a sneaking
  // player, as in vanilla: otherwise the click opens it and the block never comes
  const sneak = opensOnClick(ref.name)
  return launch(st, 'place', 'not_placeable', async () => {
    await bot.equip(inv, 'hand')
    if (sneak) bot.setControlState('sneak', true)
    try {
      await bot.placeBlock(ref, vec(off[0], off[1], off[2]))
    } finally {
      if (sneak) bot.setControlState('sneak', false)
    }
    const after = bot.blockAt(vec(tx, ty, tz))
    if (!after || REPLACEABLE.has(after.name)) throw new BodyErr('not_placeable', `${item} did not appear at ${tx},${ty},${tz}`, true)
    return { block: after.name, pos: [tx, ty, tz], item }
  })
}

// A pillar step (CraftScript's build_up): jump, and at the top of the jump place the item on the block
// the feet stood on, so the bot lands one block higher on the new block.
function startBuildUp (st, { item }) {
  const bot = st.bot
  const inv = findItem(bot, item)
  const blockDef = bot.registry.blocksByName[PLACES_AS[item] || item]
  if (!blockDef || blockDef.boundingBox !== 'block') throw new BodyErr('not_placeable', `${item} is not a solid block`)
  const feet = bot.entity.position.floored()
  const ref = loadedBlock(bot, feet.x, feet.y - 1, feet.z)
  if (REPLACEABLE.has(ref.name)) throw new BodyErr('no_reference_block', `nothing under the feet to build on (${ref.name})`)
  const cell = loadedBlock(bot, feet.x, feet.y, feet.z)
  if (!REPLACEABLE.has(cell.name)) throw new BodyErr('occupied', `${cell.name} occupies ${feet.x},${feet.y},${feet.z}`)
  const head = loadedBlock(bot, feet.x, feet.y + 2, feet.z)
  if (head.boundingBox === 'block') throw new BodyErr('occupied', `${head.name} above the head: no room to jump`)
  return launch(st, 'build_up', 'not_placeable', (a) => new Promise((resolve, reject) => {
    let placing = false
    let timer = null
    const stop = () => {
      bot.setControlState('jump', false)
      bot.removeListener('move', onMove)
      if (timer) clearTimeout(timer)
    }
    // the top of the jump is ~1.25 blocks up; placing once the feet clear the cell leaves room for the block
    const onMove = () => {
      if (placing || bot.entity.position.y < feet.y + 1.0) return
      placing = true
      bot.setControlState('jump', false)
      bot.placeBlock(ref, vec(0, 1, 0)).then(() => {
        const after = bot.blockAt(vec(feet.x, feet.y, feet.z))
        if (!after || REPLACEABLE.has(after.name)) throw new BodyErr('not_placeable', `${item} did not appear at ${feet}`, true)
        // land on the new block before reporting success, so the caller reads the new feet level
        const landed = () => bot.entity.onGround && bot.entity.position.y >= feet.y + 1 - 1e-3
        const wait = (left) => landed() || left <= 0 ? Promise.resolve() : new Promise((resolve2) => setTimeout(resolve2, 50)).then(() => wait(left - 1))
        return wait(40).then(() => ({ block: after.name, pos: [feet.x, feet.y, feet.z], item }))
      }).then((r) => { stop(); resolve(r) }, (err) => { stop(); reject(err) })
    }
    a.cleanup = stop
    a.onCancel = stop
    timer = setTimeout(() => { if (!placing) { stop(); reject(new BodyErr('timeout', 'the jump never cleared the block', true)) } }, 3000)
    bot.equip(inv, 'hand').then(() => {
      bot.on('move', onMove)
      bot.setControlState('jump', true)
    }, (err) => { stop(); reject(err) })
  }))
}

// The path mineflayer-pathfinder would walk to x,y,z now, without walking it: CraftScript's navigation policy
// checks it before a walk starts (a dig, a drop, a cell beside lava), as it does on the embedded world. A search
// that runs out of time returns what it found ('partial'); none at all is refused.
function planPath (st, { x, y, z, tolerance, timeoutMs }) {
  const bot = st.bot
  const { goals } = load('mineflayer-pathfinder')
  const goal = new goals.GoalNear(x, y, z, tolerance)
  // getPathFromTo, not getPathTo: the latter also replaces the context of the walk under way
  const search = bot.pathfinder.getPathFromTo(bot.pathfinder.movements, bot.entity.position, goal, { timeout: timeoutMs })
  const { result } = search.next().value
  if (result.status === 'noPath') throw new BodyErr('no_path', `no path to ${x},${y},${z} within ${tolerance}`, true)
  // the path's nodes are points in a cell (its centre, x + 0.5, z + 0.5, or on top of a slab): floored, the cell
  const cell = (p) => [Math.floor(p.x), Math.floor(p.y), Math.floor(p.z)]
  const steps = result.path.map((m) => ({ pos: cell(m), dig: (m.toBreak || []).map(cell) }))
  return { status: result.status, steps }
}

// The largest drop mineflayer-pathfinder may plan (its Movements.maxDropDown, default 4); CraftScript's
// navigation policy lowers it for one walk and restores it. Returns the previous value.
function setMaxDrop (st, { maxDrop }) {
  if (!Number.isInteger(maxDrop) || maxDrop < 0 || maxDrop > 16) throw new BodyErr('invalid_argument', `max drop ${maxDrop} is not 0..16`)
  const moves = st.bot.pathfinder.movements
  const old = moves.maxDropDown
  moves.maxDropDown = maxDrop
  return old
}

function startEquip (st, { item, destination }) {
  const bot = st.bot
  const dest = EQUIP_DESTINATIONS[destination]
  if (!dest) throw new BodyErr('invalid_argument', `unknown destination '${destination}'`)
  const inv = findItem(bot, item)
  return launch(st, 'equip', 'missing_item', async () => {
    await bot.equip(inv, dest)
    return { item, destination: dest }
  })
}

// -- what the server implements ---------------------------------------------------------------
// flying-squid as shipped opens no crafting, furnace or chest window and mineflayer would wait 20 s
// for each; craftbt's plugin (squid_vanilla.js) announces what it adds in the server brand:
// "flying-squid+craftbt/1 (crafting,furnace,...)". Any other brand (a vanilla server, Paper, ...) or none
// yet is taken to implement everything, so only a known-limited server is refused.
const SQUID_BRAND = /^flying-squid/
const PLUGIN_FEATURES = /\+craftbt\/\d+ \(([^)]*)\)/

// The brand as the server sent it: flying-squid writes it on the channel 'brand', which mineflayer
// (listening on 'minecraft:brand' since 1.13) never reads, so the adapter reads the raw payload.
function readBrand (st, packet) {
  if (packet.channel !== 'brand' && packet.channel !== 'minecraft:brand') return
  const data = packet.data
  if (!Buffer.isBuffer(data)) return
  let len = 0
  let shift = 0
  let i = 0
  for (; i < data.length && i < 5; i++) {
    len |= (data[i] & 0x7f) << shift
    shift += 7
    if (!(data[i] & 0x80)) { i++; break }
  }
  st.serverBrand = data.subarray(i, i + len).toString('utf8')
}

function brandOf (st) {
  return st.serverBrand || (st.bot.game && st.bot.game.serverBrand) || null
}

function serverFeatures (st) {
  const brand = brandOf(st)
  if (typeof brand !== 'string' || !SQUID_BRAND.test(brand)) return null
  const m = PLUGIN_FEATURES.exec(brand)
  return m ? m[1].split(',').filter(Boolean) : []
}

function requireFeature (st, feature, what) {
  const features = serverFeatures(st)
  if (features === null || features.includes(feature)) return
  const brand = brandOf(st)
  const plugin = PLUGIN_FEATURES.test(brand) ? "craftbt's plugin on it does not implement it" : "it runs without craftbt's plugin (squid_vanilla.js)"
  throw new BodyErr('server_unsupported', `the server (${brand}) opens no ${what}: ${plugin}`)
}

function containerFeature (name) {
  if (FURNACES.has(name)) return 'furnace'
  if (name === 'chest' || name === 'trapped_chest') return 'chest'
  if (name === 'barrel') return 'barrel'
  return `container:${name}`
}

function tableBlock (bot, table) {
  if (!table) return null
  const [x, y, z] = table
  const block = loadedBlock(bot, x, y, z)
  if (block.name !== 'crafting_table') throw new BodyErr('no_table', `${block.name} at ${x},${y},${z} is not a crafting table`)
  requireReach(bot, block.position.offset(0.5, 0.5, 0.5), `crafting table at ${x},${y},${z}`)
  return block
}

function startCraft (st, { item, count, table }) {
  const bot = st.bot
  const def = itemDef(bot, item)
  if (!(count >= 1)) throw new BodyErr('invalid_argument', `count must be >= 1, got ${count}`)
  const tbl = tableBlock(bot, table)
  requireFeature(st, 'crafting', tbl ? 'crafting table window' : 'crafting grid result')
  const all = bot.recipesAll(def.id, null, tbl)
  if (all.length === 0) {
    const withTable = tbl ? [] : bot.recipesAll(def.id, null, true)
    if (withTable.length > 0) throw new BodyErr('no_table', `${item} needs a crafting table`)
    throw new BodyErr('no_recipe', `no recipe makes ${item}`)
  }
  // `count` is the number of recipe runs, as in bot.craft and the simulated body (Body.craft).
  const times = count
  const usable = bot.recipesFor(def.id, null, times, tbl)
  if (usable.length === 0) throw new BodyErr('missing_item', `not enough ingredients to craft ${item} ${count} times`)
  const recipe = usable[0]
  const before = countOf(bot, item)
  return launch(st, 'craft', 'no_recipe', async () => {
    await bot.craft(recipe, times, tbl || undefined)
    const confirmed = await confirmInventory(st)
    return { item, crafted: countOf(bot, item) - before, crafts: times, confirmed }
  })
}

function startOpenContainer (st, { x, y, z }) {
  const bot = st.bot
  const block = loadedBlock(bot, x, y, z)
  const isFurnace = FURNACES.has(block.name)
  if (!isFurnace && !CONTAINERS.has(block.name) && !block.name.endsWith('shulker_box')) {
    throw new BodyErr('not_a_container', `${block.name} at ${x},${y},${z} is not a container`)
  }
  requireReach(bot, block.position.offset(0.5, 0.5, 0.5), `${block.name} at ${x},${y},${z}`)
  requireFeature(st, containerFeature(block.name), `${block.name} window`)
  return launch(st, 'open_container', 'window_closed', async () => {
    if (st.window) {
      try { st.window.close() } catch (e) {}
      clearWindow(st)
    }
    const win = isFurnace ? await bot.openFurnace(block) : await bot.openContainer(block)
    st.window = win
    st.windowPos = [x, y, z]
    st.windowKind = isFurnace ? 'furnace' : block.name
    return { window: windowInfo(st) }
  })
}

function openWindowOrFail (st) {
  if (!st.window) throw new BodyErr('window_closed', 'no container is open')
  return st.window
}

function startContainerPut (st, { item, count, slot }) {
  const bot = st.bot
  const win = openWindowOrFail(st)
  const def = itemDef(bot, item)
  if (!(count >= 1)) throw new BodyErr('invalid_argument', `count must be >= 1, got ${count}`)
  const have = countOf(bot, item)
  if (have < count) throw new BodyErr('missing_item', `have ${have} ${item}, need ${count}`)
  const furnace = st.windowKind === 'furnace'
  if (furnace && !['input', 'fuel', 'any'].includes(slot)) throw new BodyErr('invalid_argument', `furnace slot must be input or fuel, got '${slot}'`)
  if (!furnace && !['any', 'container'].includes(slot)) throw new BodyErr('invalid_argument', `container slot must be any, got '${slot}'`)
  return launch(st, 'container_put', 'window_full', async () => {
    if (furnace && slot === 'fuel') await win.putFuel(def.id, null, count)
    else if (furnace) await win.putInput(def.id, null, count)
    else await win.deposit(def.id, null, count)
    const confirmed = await confirmInventory(st)
    return { item, count, slot, window: windowInfo(st), confirmed }
  })
}

function startContainerTake (st, { item, count, slot }) {
  const bot = st.bot
  const win = openWindowOrFail(st)
  const def = itemDef(bot, item)
  if (!(count >= 1)) throw new BodyErr('invalid_argument', `count must be >= 1, got ${count}`)
  const furnace = st.windowKind === 'furnace'
  let available
  if (furnace) {
    const which = slot === 'any' ? 'output' : slot
    const getter = { input: () => win.inputItem(), fuel: () => win.fuelItem(), output: () => win.outputItem() }[which]
    if (!getter) throw new BodyErr('invalid_argument', `furnace slot must be input, fuel or output, got '${slot}'`)
    const it = getter()
    available = it && it.name === item ? it.count : 0
    if (available < count) throw new BodyErr('missing_item', `${which} slot holds ${available} ${item}, need ${count}`)
    return launch(st, 'container_take', 'inventory_full', async () => {
      const before = countOf(bot, item)
      if (which === 'output') await win.takeOutput()
      else if (which === 'input') await win.takeInput()
      else await win.takeFuel()
      const confirmed = await confirmInventory(st)
      return { item, count: countOf(bot, item) - before, slot: which, window: windowInfo(st), confirmed }
    })
  }
  available = win.containerItems().filter((i) => i.name === item).reduce((n, i) => n + i.count, 0)
  if (available < count) throw new BodyErr('missing_item', `container holds ${available} ${item}, need ${count}`)
  return launch(st, 'container_take', 'inventory_full', async () => {
    await win.withdraw(def.id, null, count)
    const confirmed = await confirmInventory(st)
    return { item, count, slot, window: windowInfo(st), confirmed }
  })
}

function startCloseContainer (st) {
  const win = st.window
  return launch(st, 'close_container', 'window_closed', async () => {
    if (!win) return { wasOpen: false }
    win.close()
    clearWindow(st)
    return { wasOpen: true }
  })
}

function startConsume (st, { item }) {
  const bot = st.bot
  const inv = findItem(bot, item)
  if (!bot.registry.foodsByName[item] && !ALWAYS_EDIBLE.has(item)) throw new BodyErr('not_edible', `${item} is not food`)
  if (bot.food >= 20 && !ALWAYS_EDIBLE.has(item) && bot.game.gameMode !== 'creative') throw new BodyErr('not_hungry', 'food bar is full')
  return launch(st, 'consume', 'not_edible', async (a) => {
    a.onCancel = () => bot.deactivateItem()
    const before = bot.food
    await bot.equip(inv, 'hand')
    await bot.consume()
    return { item, foodBefore: before, foodAfter: bot.food }
  })
}

function startAttack (st, { entityId }) {
  const bot = st.bot
  const e = bot.entities[entityId]
  if (!e || e === bot.entity) throw new BodyErr('unknown_entity', `no entity ${entityId}`)
  requireReach(bot, e.position.offset(0, (e.height || 1) / 2, 0), `${e.name} ${entityId}`, ATTACK_REACH)
  return launch(st, 'attack', 'unknown_entity', async () => {
    await bot.lookAt(e.position.offset(0, (e.height || 1) / 2, 0), true)
    bot.attack(e)
    return { entityId, name: e.name }
  })
}

// Vanilla answers a use on an entity with the held slot's new item (set_slot); no answer within this many ms:
// the use did nothing.
const ENTITY_USE_MS = 1000

function startUseOnEntity (st, { entityId, item }) {
  const bot = st.bot
  const e = bot.entities[entityId]
  if (!e || e === bot.entity || e.name === 'item') throw new BodyErr('unknown_entity', `no living entity ${entityId}`)
  const inv = findItem(bot, item)
  requireReach(bot, e.position.offset(0, (e.height || 1) / 2, 0), `${e.name} ${entityId}`, ATTACK_REACH)
  return launch(st, 'use_on_entity', 'not_activatable', async () => {
    await bot.equip(inv, 'hand')
    const before = countOf(bot, item)
    await bot.lookAt(e.position.offset(0, (e.height || 1) / 2, 0), true)
    await bot.activateEntity(e)
    const deadline = Date.now() + ENTITY_USE_MS
    while (countOf(bot, item) >= before && Date.now() < deadline) await bot.waitForTicks(1)
    if (countOf(bot, item) >= before) throw new BodyErr('not_activatable', `using ${item} on the ${e.name} did nothing`)
    const held = bot.heldItem
    return { entity: e.name, id: entityId, item, gave: held && held.name !== item ? held.name : null }
  })
}

function startActivateBlock (st, { x, y, z }) {
  const bot = st.bot
  const block = loadedBlock(bot, x, y, z)
  if (AIR.has(block.name) || FLUIDS.has(block.name)) throw new BodyErr('not_activatable', `${block.name} at ${x},${y},${z} cannot be activated`)
  requireReach(bot, block.position.offset(0.5, 0.5, 0.5), `${block.name} at ${x},${y},${z}`)
  return launch(st, 'activate_block', 'not_activatable', async () => {
    await bot.activateBlock(block)
    const after = bot.blockAt(block.position)
    return { block: after ? after.name : null, state: after && after.getProperties ? after.getProperties() : {}, pos: [x, y, z] }
  })
}

function startUseItem (st, { item, target }) {
  const bot = st.bot
  const inv = item ? findItem(bot, item) : null
  let block = null
  if (target) {
    const [x, y, z] = target
    block = loadedBlock(bot, x, y, z)
    requireReach(bot, block.position.offset(0.5, 0.5, 0.5), `${block.name} at ${x},${y},${z}`)
  }
  return launch(st, 'use_item', 'not_activatable', async (a) => {
    if (inv) await bot.equip(inv, 'hand')
    if (block) {
      await bot.activateBlock(block)
      const after = bot.blockAt(block.position)
      return { item, target: target, block: after ? after.name : null }
    }
    a.onCancel = () => bot.deactivateItem()
    bot.activateItem()
    await bot.waitForTicks(2)
    bot.deactivateItem()
    return { item }
  })
}

// Vanilla passes the night 100 ticks (5 s) after every player is asleep; this bound leaves room for a slow server.
const SLEEP_WAIT_MS = 15000

function startSleep (st, { x, y, z }) {
  const bot = st.bot
  const block = loadedBlock(bot, x, y, z)
  if (!block.name.endsWith('_bed')) throw new BodyErr('not_sleepable', `${block.name} at ${x},${y},${z} is not a bed`)
  requireReach(bot, block.position.offset(0.5, 0.5, 0.5), `bed at ${x},${y},${z}`)
  requireFeature(st, 'bed', 'bed to sleep in')
  return launch(st, 'sleep', 'not_sleepable', async (a) => {
    a.onCancel = () => { bot.wake().catch(() => {}) }
    // asleep is half of it: the action ends when the bot wakes in the morning (the embedded world's
    // sleep ends there too), or fails when it is woken at night or the night does not pass
    const woke = new Promise((resolve) => bot.once('wake', resolve))
    await bot.sleep(block)
    const timer = new Promise((resolve) => setTimeout(() => resolve('timeout'), SLEEP_WAIT_MS))
    if ((await Promise.race([woke, timer])) === 'timeout') {
      throw new BodyErr('not_sleepable', `asleep, but the night did not pass within ${SLEEP_WAIT_MS / 1000} s (is another player awake?)`)
    }
    await bot.waitForTicks(2) // the time update that ended the night arrives with the wake
    const t = timeOfDay(bot)
    if (t >= 12541 && t <= 23458) throw new BodyErr('not_sleepable', `woken at night (time ${t})`)
    return { pos: [x, y, z], timeOfDay: t, slept: true }
  })
}

function startChat (st, { message }) {
  const bot = st.bot
  if (typeof message !== 'string' || message.length === 0) throw new BodyErr('invalid_argument', 'empty chat message')
  if (message.length > CHAT_LIMIT) throw new BodyErr('invalid_argument', `chat message longer than ${CHAT_LIMIT}`)
  if (/[\n\r\u00a7]/.test(message)) throw new BodyErr('invalid_argument', 'chat message contains a newline or section sign')
  return launch(st, 'chat', 'invalid_argument', async () => {
    bot.chat(message)
    return { message }
  })
}

function startToss (st, { item, count }) {
  const bot = st.bot
  const def = itemDef(bot, item)
  if (!(count >= 1)) throw new BodyErr('invalid_argument', `count must be >= 1, got ${count}`)
  const have = countOf(bot, item)
  if (have < count) throw new BodyErr('missing_item', `have ${have} ${item}, need ${count}`)
  return launch(st, 'toss', 'missing_item', async () => {
    await bot.toss(def.id, null, count)
    const confirmed = await confirmInventory(st)
    return { item, count, confirmed }
  })
}

// -- the one entry point -------------------------------------------------------

const METHODS = {
  status: { fn: status, needsSpawn: false },
  snapshot: { fn: snapshot },
  blockAt: { fn: blockAt },
  chunkCells: { fn: chunkCells },
  setMaxDrop: { fn: setMaxDrop },
  planPath: { fn: planPath },
  findBlocks: { fn: findBlocks },
  nearestBlocks: { fn: nearestBlocks },
  findBlocksMineflayer: { fn: findBlocksMineflayer },
  entities: { fn: entities },
  view: { fn: view },
  equipment: { fn: equipment },
  lightLevel: { fn: lightLevel },
  chatLog: { fn: chatLog, needsSpawn: false },
  actionState: { fn: actionState, needsSpawn: false },
  cancel: { fn: cancelAction, needsSpawn: false },
  goto: { fn: startGoto, action: true },
  dig: { fn: startDig, action: true },
  place: { fn: startPlace, action: true },
  equip: { fn: startEquip, action: true },
  buildUp: { fn: startBuildUp, action: true },
  craft: { fn: startCraft, action: true },
  openContainer: { fn: startOpenContainer, action: true },
  containerPut: { fn: startContainerPut, action: true },
  containerTake: { fn: startContainerTake, action: true },
  closeContainer: { fn: startCloseContainer, action: true },
  consume: { fn: startConsume, action: true },
  attack: { fn: startAttack, action: true },
  activateBlock: { fn: startActivateBlock, action: true },
  useOnEntity: { fn: startUseOnEntity, action: true },
  useItem: { fn: startUseItem, action: true },
  sleep: { fn: startSleep, action: true },
  chat: { fn: startChat, action: true },
  toss: { fn: startToss, action: true },
  resyncInventory: { fn: startResyncInventory, action: true }
}

function call (botId, method, argsJson) {
  try {
    const st = bots.get(botId)
    if (!st) throw new BodyErr('body_disconnected', `no bot ${botId}`)
    const m = METHODS[method]
    if (!m) throw new BodyErr('invalid_argument', `unknown method '${method}'`)
    if (m.needsSpawn !== false) {
      if (st.ended) throw new BodyErr('body_disconnected', `disconnected: ${st.endReason}`)
      if (!st.spawned) throw new BodyErr('body_disconnected', 'the bot has not spawned yet', true)
    }
    if (m.action && st.dead) throw new BodyErr('died', 'the bot is dead')
    const args = argsJson ? JSON.parse(argsJson) : {}
    return JSON.stringify({ ok: m.fn(st, args) })
  } catch (err) {
    return JSON.stringify({ error: toErr(err, 'invalid_argument') })
  }
}

function quit (botId, reason) {
  const st = bots.get(botId)
  if (!st) return false
  failAll(st, 'body_disconnected', 'the body was closed')
  if (!st.ended) {
    try { st.bot.quit(reason || 'bye') } catch (e) {}
    // end() closes the socket even if the server never answers the quit.
    setTimeout(() => { try { st.bot.end() } catch (e) {} }, 1000).unref()
  }
  setTimeout(() => bots.delete(botId), 5000).unref()
  return true
}

module.exports = { init, createBot, call, quit }
