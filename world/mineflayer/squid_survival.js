'use strict'
// craftbt's flying-squid plugin, survival part (loaded by squid_vanilla.js): beds, hunger and eating,
// wandering animals and the loot of a dead mob.
//
// flying-squid 1.12 keeps a food bar that never moves, eats nothing, opens no bed and has no mob AI.
// The vanilla rules implemented here (Java 1.21.4):
//   * beds: a right-click on a bed between 12542 and 23459 (or in a thunderstorm) puts the player to
//     sleep (pose SLEEPING); no monster within 8 blocks across and 5 up or down; once every player of the
//     world sleeps for 100 ticks the time jumps to the next morning (0) and they wake up;
//     outside the night the bed answers "You can sleep only at night and during thunderstorms";
//   * hunger: exhaustion by activity (sprinting 0.1 per block, jumping 0.05, sprint-jumping 0.2, an attack
//     0.1, damage taken 0.1, a block broken 0.005, the Hunger effect 0.005 x (level + 1) per tick); every
//     4.0 takes one saturation point, or one food point when saturation is 0; natural regeneration
//     (food 20 and saturation: 1 health per 10 ticks for up to 6 exhaustion; food >= 18: 1 health per 80
//     ticks for 6 exhaustion) and starvation (food 0: 1 damage per 80 ticks, down to 1 health, as on Normal);
//   * eating: using a food item (minecraft-data `foods`) while the food bar is not full (golden apples and
//     chorus fruit always) takes 32 ticks (dried kelp 16), then adds its food points and saturation
//     (saturation capped by the food level), takes one item and tells the client (entity status 9);
//     releasing the use button first cancels it;
//   * wandering: an animal (any summoned living entity that is not hostile) walks to a random standable
//     cell 2-6 blocks away at 1 block/s, rests 1-4 s, and again (random numbers seeded by its entity id).

const NIGHT_START = 12542
const NIGHT_END = 23459
const SLEEP_TICKS = 100
const MONSTER_XZ = 8
const MONSTER_Y = 5
const POSE_KEY = 6 // the `pose` entity metadata index for players in 1.21.x (minecraft-data metadataKeys)
const POSE_STANDING = 0
const POSE_SLEEPING = 2
const MAX_FOOD = 20
const EXHAUSTION_PER_POINT = 4.0
const EXHAUSTION = { sprintPerBlock: 0.1, jump: 0.05, sprintJump: 0.2, attack: 0.1, damage: 0.1, dig: 0.005, hungerPerLevel: 0.005, heal: 6.0 }
const EAT_TICKS = 32
const FAST_FOOD = { dried_kelp: 16 }
const ALWAYS_EDIBLE = new Set(['golden_apple', 'enchanted_golden_apple', 'chorus_fruit'])
const TICK_MS = 50
const WANDER = { speedPerStep: 0.1, minDistance: 2, maxDistance: 6, minRestMs: 1000, maxRestMs: 4000 }

function isNight (time) {
  const t = ((time % 24000) + 24000) % 24000
  return t >= NIGHT_START && t <= NIGHT_END
}

// mulberry32: a small seeded generator, so a mob's walk does not depend on Math.random
function seeded (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// Where a player looks, as a unit vector (flying-squid keeps yaw and pitch as protocol angle bytes,
// 256 to a turn, Notch's convention).
function lookVector (player, Vec3) {
  const yaw = (player.yaw || 0) * 2 * Math.PI / 256
  const pitch = (player.pitch || 0) * 2 * Math.PI / 256
  return new Vec3(-Math.sin(yaw) * Math.cos(pitch), -Math.sin(pitch), Math.cos(yaw) * Math.cos(pitch))
}
module.exports.lookVector = lookVector

module.exports.FEATURES = ['bed', 'hunger', 'wander', 'farming', 'redstone']
module.exports.isNight = isNight

// The drops of a dead mob. `table` is craftbt's loot table (craftbt/world/loot.py, sent in the server's
// settings: vanilla 1.21.4's counts, the table the embedded world and the planners use); a mob it lacks
// drops minecraft-data's entityLoot. Each entry is [item, min, max]; `random` draws in [0, 1).
module.exports.lootFor = function (table, registry, name, random) {
  const out = []
  if (table && table[name]) {
    for (const [item, lo, hi] of table[name]) out.push([item, lo + Math.floor(random() * (hi - lo + 1))])
    return out
  }
  const loot = registry.entityLoot && registry.entityLoot[name]
  if (loot && Array.isArray(loot.drops)) {
    for (const drop of loot.drops) {
      if (drop.playerKill || !(drop.dropChance >= 1 || random() < drop.dropChance)) continue
      const [lo, hi] = drop.stackSizeRange || [1, 1]
      out.push([drop.item, lo + Math.floor(random() * (Math.max(hi, lo) - lo + 1))])
    }
  }
  return out
}

// -- wandering animals ----------------------------------------------------------------------------
// Called by squid_vanilla.js's mob loop (every 100 ms) for every summoned mob that is not hostile.
module.exports.wander = function (mob, now, Vec3) {
  const w = mob.craftbtWander || (mob.craftbtWander = { random: seeded(mob.id * 7919 + 1), target: null, restUntil: now + 500, checking: false })
  if (w.target) {
    const flat = new Vec3(w.target.x - mob.position.x, 0, w.target.z - mob.position.z)
    const dist = Math.sqrt(flat.x * flat.x + flat.z * flat.z)
    if (dist <= WANDER.speedPerStep) {
      mob.sendPosition(w.target.clone(), true)
      w.target = null
      w.restUntil = now + WANDER.minRestMs + w.random() * (WANDER.maxRestMs - WANDER.minRestMs)
      return
    }
    // an angle byte (256 to a turn, -128..127) as flying-squid keeps it: degrees overflowed the spawn packet's
    // i8 yaw, so a player logging in near a wandering animal could not be sent it
    mob.yaw = Math.round(Math.atan2(-flat.x, flat.z) * 128 / Math.PI)
    if (mob.yaw > 127) mob.yaw -= 256
    mob.sendPosition(mob.position.plus(flat.scaled(WANDER.speedPerStep / dist)), true)
    return
  }
  if (w.checking || now < w.restUntil) return
  const angle = w.random() * 2 * Math.PI
  const distance = WANDER.minDistance + w.random() * (WANDER.maxDistance - WANDER.minDistance)
  const from = mob.position
  const to = from.offset(Math.cos(angle) * distance, 0, Math.sin(angle) * distance)
  // every cell on the way: feet and head passable, a floor below
  const cells = []
  for (let s = 0.5; s <= distance + 0.01; s += 0.5) {
    const p = from.offset(Math.cos(angle) * s, 0, Math.sin(angle) * s).floored()
    cells.push([p, false], [p.offset(0, 1, 0), false], [p.offset(0, -1, 0), true])
  }
  w.checking = true
  Promise.all(cells.map(([p, solid]) => mob.world.getBlock(p).then((b) => (b.boundingBox === 'block') === solid)))
    .then((ok) => { if (ok.every(Boolean)) w.target = to; else w.restUntil = now + WANDER.minRestMs })
    .catch(() => { w.restUntil = now + WANDER.maxRestMs })
    .finally(() => { w.checking = false })
}

// -- beds -----------------------------------------------------------------------------------------
module.exports.server = function (serv, { hostiles }) {
  const registry = serv.registry
  const beds = Object.values(registry.blocksByName).filter((b) => b.name.endsWith('_bed')).map((b) => b.name)

  function monsterNear (player) {
    for (const mob of hostiles()) {
      if (mob.world !== player.world) continue
      const d = mob.position.minus(player.position)
      if (Math.abs(d.x) <= MONSTER_XZ && Math.abs(d.z) <= MONSTER_XZ && Math.abs(d.y) <= MONSTER_Y) return true
    }
    return false
  }

  serv.once('asap', () => {
    for (const name of beds) {
      serv.onBlockInteraction(name, async ({ block, player }) => {
        if (player.crouching) return false
        if (!isNight(serv.time) && !serv.craftbtThunder) {
          player.chat('You can sleep only at night and during thunderstorms')
          return true
        }
        if (monsterNear(player)) {
          player.chat('You may not rest now; there are monsters nearby')
          return true
        }
        player.craftbtSleep(block.position)
        return true
      })
    }
  })

  // the night passes once every player of a world has slept 100 ticks
  setInterval(() => {
    const worlds = new Map()
    for (const p of serv.players) {
      if (p.gameMode === 3) continue
      const list = worlds.get(p.world) || []
      list.push(p)
      worlds.set(p.world, list)
    }
    for (const players of worlds.values()) {
      for (const p of players) if (p.craftbtSleeping) p.craftbtSleeping.ticks++
      if (!players.every((p) => p.craftbtSleeping && p.craftbtSleeping.ticks >= SLEEP_TICKS)) continue
      serv.setTime(0) // the next morning
      for (const p of players) p.craftbtWake()
    }
  }, TICK_MS).unref()
}

// -- per player, before flying-squid's own plugins run ----------------------------------------------
// flying-squid announces permission level 0 (entity status 24) at login to everyone, even with
// everybody-op: an op gets level 4 (status 28), so a client that reads it (control_environment's guard)
// knows it may use operator commands.
module.exports.playerEarly = function (player) {
  const write = player._client.write.bind(player._client)
  player._client.write = (name, params) => {
    if (name === 'entity_status' && params.entityStatus === 24 && params.entityId === player.id && player.op) {
      params = { ...params, entityStatus: 28 }
    }
    return write(name, params)
  }
}

// -- per player: sleeping, hunger, eating -----------------------------------------------------------
module.exports.player = function (player, serv) {
  const registry = serv.registry
  const client = player._client
  const hungerEffect = registry.effectsByName && registry.effectsByName.Hunger
  if (typeof player.food !== 'number') player.food = MAX_FOOD
  if (typeof player.foodSaturation !== 'number') player.foodSaturation = 5
  let exhaustion = 0
  let regenTimer = 0
  let sprinting = false
  let last = player.position ? player.position.clone() : null
  let lastOnGround = true
  let eating = null // { slot, type, ticks }

  function sendHealth () {
    client.write('update_health', { health: player.health, food: player.food, foodSaturation: player.foodSaturation })
  }
  function pose (value) {
    player._writeNearby('entity_metadata', { entityId: player.id, metadata: [{ key: POSE_KEY, type: 'pose', value }] })
  }

  player.craftbtSleep = (pos) => {
    player.craftbtSleeping = { pos, ticks: 0 }
    pose(POSE_SLEEPING)
  }
  player.craftbtWake = () => {
    if (!player.craftbtSleeping) return
    player.craftbtSleeping = null
    pose(POSE_STANDING)
    player._writeNearby('animation', { entityId: player.id, animation: 2 }) // leave bed
  }

  client.on('entity_action', ({ actionId }) => {
    if (actionId === 'start_sprinting' || actionId === 3) sprinting = true
    else if (actionId === 'stop_sprinting' || actionId === 4) sprinting = false
    else if (actionId === 'stop_sleeping' || actionId === 2) player.craftbtWake()
  })

  player.craftbtExhaust = (amount) => { exhaustion += amount }
  player.on('dug_cancel', () => { exhaustion += EXHAUSTION.dig })
  player.on('attack_cancel', () => { exhaustion += EXHAUSTION.attack })
  const takeDamage = player.takeDamage
  if (takeDamage) {
    player.takeDamage = (opts) => {
      exhaustion += EXHAUSTION.damage
      player.craftbtWake()
      return takeDamage(opts)
    }
  }

  // -- eating (and throwing: blockUses) --
  client.on('use_item', () => {
    if (serv.craftbtUses && serv.craftbtUses.throwHeld(player)) return
    const slot = 36 + player.heldItemSlot
    const held = player.inventory.slots[slot]
    const name = held && registry.items[held.type] && registry.items[held.type].name
    const food = name && registry.foodsByName[name]
    if (!food || player.gameMode === 3) return
    if (player.food >= MAX_FOOD && !ALWAYS_EDIBLE.has(name) && player.gameMode !== 1) return
    eating = { slot, type: held.type, ticks: FAST_FOOD[name] || EAT_TICKS, food }
  })
  client.on('block_dig', ({ status }) => { if (status === 5) eating = null }) // released the use button
  client.on('held_item_slot', () => { eating = null })

  function finishEating () {
    const { slot, type, food } = eating
    eating = null
    const held = player.inventory.slots[slot]
    if (!held || held.type !== type) return
    player.food = Math.min(MAX_FOOD, player.food + food.foodPoints)
    player.foodSaturation = Math.min(player.food, player.foodSaturation + food.saturation)
    if (player.gameMode !== 1) {
      const left = held.count - 1
      player.inventory.updateSlot(slot, left > 0 ? new serv.craftbtItem(held.type, left, held.metadata, held.nbt) : null)
    }
    client.write('entity_status', { entityId: player.id, entityStatus: 9 })
    sendHealth()
  }

  const timer = setInterval(() => {
    if (!(player.health > 0) || player.gameMode === 1 || player.gameMode === 3) return
    const food0 = player.food
    const sat0 = player.foodSaturation
    // activity since the last tick
    const here = player.position
    if (last && here) {
      const dx = here.x - last.x
      const dz = here.z - last.z
      if (sprinting) exhaustion += EXHAUSTION.sprintPerBlock * Math.sqrt(dx * dx + dz * dz)
      if (lastOnGround && !player.onGround && here.y > last.y) exhaustion += sprinting ? EXHAUSTION.sprintJump : EXHAUSTION.jump
    }
    last = here ? here.clone() : null
    lastOnGround = player.onGround !== false
    const effect = hungerEffect && player.effects && player.effects[hungerEffect.id]
    if (effect) exhaustion += EXHAUSTION.hungerPerLevel * ((effect.amplifier || 0) + 1)
    if (eating && --eating.ticks <= 0) finishEating()
    // regeneration and starvation
    regenTimer++
    if (player.food >= MAX_FOOD && player.foodSaturation > 0 && player.health < 20) {
      if (regenTimer >= 10) {
        const spent = Math.min(player.foodSaturation, EXHAUSTION.heal)
        player.health = Math.min(20, player.health + spent / EXHAUSTION.heal)
        exhaustion += spent
        regenTimer = 0
        sendHealth()
      }
    } else if (player.food >= 18 && player.health < 20) {
      if (regenTimer >= 80) {
        player.health = Math.min(20, player.health + 1)
        exhaustion += EXHAUSTION.heal
        regenTimer = 0
        sendHealth()
      }
    } else if (player.food <= 0) {
      if (regenTimer >= 80) {
        if (player.health > 1) { player.health -= 1; sendHealth() }
        regenTimer = 0
      }
    } else regenTimer = 0
    while (exhaustion >= EXHAUSTION_PER_POINT) {
      exhaustion -= EXHAUSTION_PER_POINT
      if (player.foodSaturation > 0) player.foodSaturation = Math.max(0, player.foodSaturation - 1)
      else player.food = Math.max(0, player.food - 1)
    }
    if (player.food !== food0 || player.foodSaturation !== sat0) sendHealth()
  }, TICK_MS)
  timer.unref()
  player.on('disconnected', () => clearInterval(timer))
}

// -- block uses: hoes, seeds, levers, doors, lamps, pistons, thrown items ---------------------------------
// flying-squid 1.12 answers none of these (no farmland, no crops from seeds, no lever or door states, no
// redstone for 1.13+ block names). What this does, as vanilla does it:
//   * a hoe used on the top of grass, dirt or a dirt path with air above makes farmland;
//   * wheat seeds, carrots, potatoes and beetroot seeds used on the top of farmland plant the crop (age 0;
//     crops do not grow here: tests /setblock ripe ones);
//   * a lever toggles `powered`; a door (both halves), trapdoor or fence gate toggles `open`;
//   * a lever powers the blocks it touches: a redstone lamp lights, a piston extends (a piston_head in the
//     air cell it faces; a piston facing a block stays in: no block pushing) and retracts when unpowered;
//   * a snowball, egg or ender pearl used in the air is thrown (one item, an entity that flies for 1.5 s).
const CROP_OF_ITEM = { wheat_seeds: 'wheat', carrot: 'carrots', potato: 'potatoes', beetroot_seeds: 'beetroots' }
const TILLABLE = ['grass_block', 'dirt', 'dirt_path']
const THROWN = { snowball: 'snowball', egg: 'egg', ender_pearl: 'ender_pearl' }
const NEIGHBOURS = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
const FACING = { north: [0, 0, -1], south: [0, 0, 1], west: [-1, 0, 0], east: [1, 0, 0], up: [0, 1, 0], down: [0, -1, 0] }

// The state id of `name` with `props` (minecraft-data's state order: the last state varies fastest;
// booleans list true first)
function stateId (registry, name, props) {
  const def = registry.blocksByName[name]
  let offset = 0
  for (const s of def.states || []) {
    const values = s.values || (s.type === 'bool' ? ['true', 'false'] : null)
    const want = props[s.name]
    let i = values ? values.indexOf(String(want)) : Number(want)
    if (i < 0) i = 0
    offset = offset * s.num_values + i
  }
  return def.minStateId + offset
}

// flying-squid sends no entity metadata on 1.20.2+, so a client never learns what a dropped item entity is
// (mineflayer's entity.getDroppedItem() is null): send its item stack (metadata `item`) when it spawns.
module.exports.itemMetadata = function (serv) {
  const registry = serv.registry
  const def = registry.entitiesByName.item
  const key = def && def.metadataKeys ? def.metadataKeys.indexOf('item') : -1
  if (key < 0) return
  serv.once('asap', () => { // flying-squid defines spawnObject after the plugins' server functions ran
    const spawnObject = serv.spawnObject
    serv.spawnObject = (type, world, position, opts) => {
      const object = spawnObject(type, world, position, opts)
      if (type === def.id && object && object.itemId != null) {
        const stack = serv.craftbtItem.toNotch(new serv.craftbtItem(object.itemId, object.itemCount || 1))
        object._writeOthersNearby('entity_metadata', { entityId: object.id, metadata: [{ key, type: 'item_stack', value: stack }] })
      }
      return object
    }
  })
}

// The properties of a state id (the inverse of stateId)
function propsOfState (registry, name, id) {
  const def = registry.blocksByName[name]
  let offset = id - def.minStateId
  const props = {}
  const states = def.states || []
  for (let i = states.length - 1; i >= 0; i--) {
    const s = states[i]
    const values = s.values || (s.type === 'bool' ? ['true', 'false'] : null)
    const index = offset % s.num_values
    offset = Math.floor(offset / s.num_values)
    const raw = values ? values[index] : index
    props[s.name] = raw === 'true' ? true : raw === 'false' ? false : raw
  }
  return props
}

// /setblock as vanilla parses it: `/setblock x y z block[prop=value,...]` places the block's default state
// with those properties changed (flying-squid's placed state 0: a lever powered, a lamp lit, a piston
// extended, a door open). A trailing number is flying-squid's form, a state offset (`wheat 7`).
function setblockCommand (serv, Vec3) {
  const registry = serv.registry
  serv.commands.add({
    base: 'setblock',
    info: 'set a block at a position (craftbt: block states in brackets, the default state otherwise)',
    usage: '/setblock <x> <y> <z> <block>[<state>=<value>,...] [data]',
    op: true,
    parse (str) {
      const m = str.trim().match(/^(~?-?[\d.]*) (~?-?[\d.]*) (~?-?[\d.]*) (?:minecraft:)?([a-z0-9_]+)(?:\[([^\]]*)\])?(?: (\d{1,5}))?$/)
      if (!m || !registry.blocksByName[m[4]]) return false
      const props = {}
      for (const pair of (m[5] || '').split(',').filter(Boolean)) {
        const [k, v] = pair.split('=')
        props[k.trim()] = v === undefined ? '' : v.trim()
      }
      return { at: m.slice(1, 4), name: m[4], props, data: m[6] }
    },
    action ({ at, name, props, data }, ctx) {
      const base = ctx.player ? ctx.player.position : new Vec3(0, 128, 0)
      const [x, y, z] = at.map((v, i) => serv.posFromString(v, base[['x', 'y', 'z'][i]]))
      const def = registry.blocksByName[name]
      const id = data !== undefined
        ? def.minStateId + Number(data)
        : stateId(registry, name, { ...propsOfState(registry, name, def.defaultState), ...props })
      const world = ctx.player ? ctx.player.world : serv.overworld
      serv.setBlock(world, new Vec3(x, y, z).floored(), id)
    }
  })
}

module.exports.blockUses = function (serv, { Vec3 }) {
  const registry = serv.registry
  const heldName = (player) => {
    const held = player.inventory.slots[36 + player.heldItemSlot]
    return held && registry.items[held.type] ? registry.items[held.type].name : null
  }
  const propsOf = (block) => (block.getProperties ? block.getProperties() : {})
  async function setProps (world, pos, block, changes) {
    const name = registry.blocks[block.type].name
    await serv.setBlock(world, pos, stateId(registry, name, { ...propsOf(block), ...changes }))
  }

  // what a lever's power does to the blocks it touches
  async function powerNeighbours (world, leverPos, powered) {
    for (const [dx, dy, dz] of NEIGHBOURS) {
      const pos = leverPos.offset(dx, dy, dz)
      const block = await world.getBlock(pos)
      const name = registry.blocks[block.type] && registry.blocks[block.type].name
      if (name === 'redstone_lamp') await setProps(world, pos, block, { lit: powered })
      if (name === 'piston' || name === 'sticky_piston') {
        const props = propsOf(block)
        const [fx, fy, fz] = FACING[props.facing] || FACING.north
        const front = pos.offset(fx, fy, fz)
        const there = await world.getBlock(front)
        const frontName = registry.blocks[there.type] && registry.blocks[there.type].name
        if (powered && !props.extended && frontName === 'air') {
          await setProps(world, pos, block, { extended: true })
          await serv.setBlock(world, front, stateId(registry, 'piston_head', { facing: props.facing, short: false, type: name === 'sticky_piston' ? 'sticky' : 'normal' }))
        } else if (!powered && props.extended) {
          if (frontName === 'piston_head') await serv.setBlock(world, front, 0)
          await setProps(world, pos, block, { extended: false })
        }
      }
    }
  }

  serv.once('asap', () => {
    setblockCommand(serv, Vec3)
    for (const name of TILLABLE) {
      serv.onBlockInteraction(name, async ({ block, player }) => {
        const held = heldName(player)
        if (!held || !held.endsWith('_hoe') || block.direction !== 1) return false
        const above = await player.world.getBlock(block.position.offset(0, 1, 0))
        if (above.type !== registry.blocksByName.air.id) return false
        await serv.setBlock(player.world, block.position, stateId(registry, 'farmland', { moisture: 0 }))
        return true
      })
    }
    for (const [item, crop] of Object.entries(CROP_OF_ITEM)) {
      if (!registry.itemsByName[item] || !registry.blocksByName[crop]) continue
      serv.onItemPlace(item, async ({ player, referencePosition, direction }) => {
        const below = await player.world.getBlock(referencePosition)
        if (direction !== 1 || below.type !== registry.blocksByName.farmland.id) return { id: -1, data: 0 }
        return { id: registry.blocksByName[crop].id, data: 0 }
      }, false)
    }
    serv.onBlockInteraction('lever', async ({ block, player }) => {
      const powered = !propsOf(block).powered
      await setProps(player.world, block.position, block, { powered })
      await powerNeighbours(player.world, block.position, powered)
      return true
    })
    const openable = Object.keys(registry.blocksByName).filter((n) =>
      (n.endsWith('_door') || n.endsWith('_trapdoor') || n.endsWith('_fence_gate')) && !n.startsWith('iron_'))
    for (const name of openable) {
      serv.onBlockInteraction(name, async ({ block, player }) => {
        const props = propsOf(block)
        const open = !props.open
        await setProps(player.world, block.position, block, { open })
        if (name.endsWith('_door')) {
          const other = block.position.offset(0, props.half === 'lower' ? 1 : -1, 0)
          const half = await player.world.getBlock(other)
          if (half.type === block.type) await setProps(player.world, other, half, { open })
        }
        return true
      })
    }
  })

  return {
    // a thrown item: one fewer in the hand, an entity flying where the player looks
    throwHeld (player) {
      const slot = 36 + player.heldItemSlot
      const held = player.inventory.slots[slot]
      const name = heldName(player)
      const entity = name && THROWN[name] && registry.entitiesByName[THROWN[name]]
      if (!entity) return false
      if (player.gameMode !== 1) {
        player.inventory.updateSlot(slot, held.count > 1 ? new serv.craftbtItem(held.type, held.count - 1, held.metadata) : null)
      }
      const look = lookVector(player, Vec3)
      serv.spawnObject(entity.id, player.world, player.position.offset(0, 1.5, 0), { velocity: look.scaled(20), deathTime: 1500 })
      return true
    }
  }
}
