// The core macros of seed 004 section 8, available to every script without a declaration.
// A script's own macro of the same name overrides the core one (section 11 A declares stair_up_step).
// torch_cadence_7() is native (it remembers where it last placed a torch): see interp.py.

// Step forward and up one block (section 11 A; safe_step_up is a step of world.terrain's plan_stair); digs the head cell if not air.
macro stair_up_step() {
  assert(safe_step_up(f1), "no safe step");
  if (!is_air(f1+u2)) { dig(f1+u2); }
  move(f1^);
}

// Step forward and down one block, digging the three cells in the way (the head passes f1+u1 first).
macro stair_down_step() {
  if (!is_air(f1+u1)) { dig(f1+u1); }
  if (!is_air(f1)) { dig(f1); }
  if (!is_air(f1+d1)) { dig(f1+d1); }
  move(f1_);
}

// Dig a 1x2 tunnel cell ahead and walk into it.
macro tunnel_forward() {
  if (!is_air(f1)) { dig(f1); }
  if (!is_air(f1+u1)) { dig(f1+u1); }
  move(f1);
}

// Raise the bot h blocks on a pillar of the most plentiful building block carried.
macro build_pillar(int h) {
  repeat(h) { build_up(); }
}

// Come down h blocks by digging the pillar block under the feet, one block (one fall) at a time.
macro descend_pillar_safely(int h) {
  repeat(h) {
    assert(!is_air(d1), "nothing under the feet to dig");
    dig(d1);
    wait(500);
  }
}
