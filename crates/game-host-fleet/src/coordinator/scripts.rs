//! The scripts Redis runs for the fleet, each atomically: a world's
//! owner and epoch change only here, and a write to a world's log is
//! refused unless it comes from the world's owner at its current epoch
//! (fencing: a node that lost a world can no longer write to it).

use std::sync::LazyLock;

use redis::Script;

/// The error code a fenced write or hand-off is refused with.
pub(crate) const FENCED: &str = "FENCED";

/// The error code of a write to a world Redis does not have (it lost
/// its data, restarted without it): the writer enters it again.
pub(crate) const GONE: &str = "GONE";

/// The error code of a write past the end of what Redis holds of a
/// log (it lost its last writes): the detail is where its log ends, and
/// the writer sends what is missing first.
pub(crate) const GAP: &str = "GAP";

/// KEYS: the world, its stream. ARGV: node, epoch, offset, digest, bytes,
/// the world's field that holds where that log ends (`logend`, `seatsend`).
/// Appends a record to the world's log or seat log, at or before its end.
pub(crate) static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local held = redis.call('HMGET', KEYS[1], 'owner', 'epoch', ARGV[6])
if not held[1] then
  return redis.error_reply('GONE the fleet has no such world')
end
if held[1] ~= ARGV[1] or held[2] ~= ARGV[2] then
  return redis.error_reply('FENCED the world is held by ' .. tostring(held[1]) ..
    ' at epoch ' .. tostring(held[2]))
end
local ends = tonumber(held[3] or '0') or 0
if tonumber(ARGV[3]) > ends then
  return redis.error_reply('GAP ' .. ends)
end
redis.call('XADD', KEYS[2], '*', 'o', ARGV[3], 'e', ARGV[2], 'h', ARGV[4], 'b', ARGV[5])
redis.call('HSET', KEYS[1], ARGV[6], tonumber(ARGV[3]) + string.len(ARGV[5]))
return 1
"#,
    )
});

/// KEYS: the world, the node's worlds, the world id counter. ARGV: node,
/// world id, manifest, epoch. Enters again a world Redis lost, held
/// by the node that still runs it (its logs are then sent again from the
/// start); the counter goes past it, so that its id is not given again.
pub(crate) static RECREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', ARGV[4], 'manifest', ARGV[3],
  'logend', 0, 'seatsend', 0)
redis.call('SADD', KEYS[2], ARGV[2])
if (tonumber(redis.call('GET', KEYS[3]) or '0') or 0) < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[3], ARGV[2])
end
return 1
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
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'epoch', 1, 'manifest', ARGV[3],
  'logend', 0, 'seatsend', 0)
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
