//! The scripts the engine runs for the fleet, each atomically: a world's
//! owner and epoch change only here, and a write to a world's log is
//! refused unless it comes from the world's owner at its current epoch
//! (fencing: a node that lost a world can no longer write to it).

use std::sync::LazyLock;

use redis::Script;

/// The error code a fenced write or hand-off is refused with.
pub(crate) const FENCED: &str = "FENCED";

/// KEYS: the world, its stream. ARGV: node, epoch, offset, digest, bytes.
/// Appends a record to the world's log or seat log.
pub(crate) static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local held = redis.call('HMGET', KEYS[1], 'owner', 'epoch')
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then
  return redis.error_reply('FENCED the world is held by ' .. tostring(held[1]) ..
    ' at epoch ' .. tostring(held[2]))
end
return redis.call('XADD', KEYS[2], '*', 'o', ARGV[3], 'e', ARGV[2], 'h', ARGV[4], 'b', ARGV[5])
"#,
    )
});

/// KEYS: the world, the node's worlds. ARGV: node, world id, manifest.
/// Makes a new world, held by the node at epoch 1.
pub(crate) static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('EXISTS world ' .. ARGV[2] .. ' is already in the fleet')
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', 1, 'manifest', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
"#,
    )
});

/// KEYS: the world, the old owner's worlds, the new owner's worlds, the new
/// owner's claims. ARGV: old owner, new owner, world id.
/// Hands a world from its owner to another node, at a new epoch, and tells
/// that node to resume it; refused if the old owner no longer holds it.
pub(crate) static ASSIGN: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner ~= ARGV[1] then
  return redis.error_reply('FENCED world ' .. ARGV[3] .. ' is held by ' .. tostring(owner))
end
local epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('RPUSH', KEYS[4], ARGV[3])
return epoch
"#,
    )
});

/// KEYS: the world, its owner's worlds, its log, its seat log. ARGV: node,
/// epoch, world id, seconds to keep an ended world. Notes that a world
/// ended: no node holds it, and its keys go after a while.
pub(crate) static END: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local held = redis.call('HMGET', KEYS[1], 'owner', 'epoch')
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then
  return redis.error_reply('FENCED the world is held by ' .. tostring(held[1]))
end
redis.call('HSET', KEYS[1], 'owner', '', 'ended', 1)
redis.call('SREM', KEYS[2], ARGV[3])
for i = 1, 4 do
  if i ~= 2 then redis.call('EXPIRE', KEYS[i], ARGV[4]) end
end
return 1
"#,
    )
});
