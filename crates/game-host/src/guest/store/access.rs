//! What an instance's grants let its calls touch, as proofs the compiler
//! asks for. Reading or changing an entity, or a game's data, goes through
//! `view`, whose functions take a proof made here and nowhere else
//! ([`Readable`], [`Writable`], [`ReadableIds`], [`WritableIds`],
//! [`DataAccess`]): its fields are private to this module, so a host
//! function cannot reach the scene without the check that makes one. A new
//! host function that forgets its grant does not compile.
//!
//! This is the idea of wasmtime-wasi's narrow views (each interface reaches
//! only what its view exposes), applied where grants are decided: per
//! entity and per component, which a view per interface could not express,
//! since one interface (`entity`) both reads and writes.
//!
//! - reads: the entities it spawned, and those whose name its grants'
//!   `reads` allow;
//! - writes: the entities it spawned, and those `writes` allows;
//! - game data: a component `data_reads` (or `data_writes`) allows, on an
//!   entity it may read (or write).

use super::ScriptState;
use crate::guest::entity_guard::EntityGuard;
use crate::scene::EntityId;

/// Proof that the instance may read entity `.entity()`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Readable(EntityId);

/// Proof that the instance may change entity `.entity()`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Writable(EntityId);

/// Proof that the instance may read each of `.ids()`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadableIds<'a>(&'a [u32]);

/// Proof that the instance may change each of `.ids()`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WritableIds<'a>(&'a [u32]);

/// Proof that the instance may read (or write) component `.component()` of
/// entity `.entity()`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DataAccess<'a> {
    entity: EntityId,
    component: &'a str,
}

/// Proof that the instance may read (or write) each of the game's
/// components or resources it was made for, by name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GameAccess(());

impl Readable {
    pub fn entity(self) -> EntityId {
        self.0
    }
}

impl Writable {
    pub fn entity(self) -> EntityId {
        self.0
    }
}

impl<'a> ReadableIds<'a> {
    pub fn ids(self) -> &'a [u32] {
        self.0
    }
}

impl<'a> WritableIds<'a> {
    pub fn ids(self) -> &'a [u32] {
        self.0
    }
}

impl<'a> DataAccess<'a> {
    pub fn entity(self) -> EntityId {
        self.entity
    }

    pub fn component(self) -> &'a str {
        self.component
    }
}

/// Which grant a check is for, in its error.
#[derive(Clone, Copy)]
enum Side {
    Read,
    Write,
}

impl ScriptState {
    /// Fails (a trap naming the entity) unless the instance may read entity
    /// `id`. An id that names no entity passes: the read itself fails on it.
    #[inline(always)]
    pub(crate) fn may_read(&mut self, id: EntityId) -> wasmtime::Result<Readable> {
        if self.reads.restricted() && self.reads.decided(id) != Some(true) {
            self.check(Side::Read, id)?;
        }
        Ok(Readable(id))
    }

    /// Fails (a trap naming the entity) unless the instance may change
    /// entity `id`. An id that names no entity passes: the write itself
    /// fails on it.
    #[inline(always)]
    pub(crate) fn may_write(&mut self, id: EntityId) -> wasmtime::Result<Writable> {
        if self.writes.restricted() && self.writes.decided(id) != Some(true) {
            self.check(Side::Write, id)?;
        }
        Ok(Writable(id))
    }

    /// Fails (a trap saying `what` needs it) unless the instance may read
    /// every entity: for what reaches all of them at once (a replicated
    /// component).
    pub(crate) fn may_read_every(&mut self, what: &str) -> wasmtime::Result<()> {
        self.may_reach_every(Side::Read, what)
    }

    /// As [`Self::may_read_every`], for writes (a player's interest).
    pub(crate) fn may_write_every(&mut self, what: &str) -> wasmtime::Result<()> {
        self.may_reach_every(Side::Write, what)
    }

    fn may_reach_every(&mut self, side: Side, what: &str) -> wasmtime::Result<()> {
        if self.guard(side).restricted() {
            let key = match side {
                Side::Read => "reads",
                Side::Write => "writes",
            };
            return Err(wasmtime::format_err!(
                "grants: script `{}` may not {what}: that reaches every entity, and its grants' \
                 {key} allow only some",
                self.identity.name
            ));
        }
        Ok(())
    }

    /// [`Self::may_read`] for each of `ids`.
    pub(crate) fn may_read_all<'a>(&mut self, ids: &'a [u32]) -> wasmtime::Result<ReadableIds<'a>> {
        if self.reads.restricted() {
            for &id in ids {
                self.may_read(EntityId::from(id))?;
            }
        }
        Ok(ReadableIds(ids))
    }

    /// [`Self::may_write`] for each of `ids`.
    pub(crate) fn may_write_all<'a>(
        &mut self,
        ids: &'a [u32],
    ) -> wasmtime::Result<WritableIds<'a>> {
        if self.writes.restricted() {
            for &id in ids {
                self.may_write(EntityId::from(id))?;
            }
        }
        Ok(WritableIds(ids))
    }

    /// Fails (a trap naming the component, or the entity) unless the
    /// instance may read `component` of entity `id`.
    pub(crate) fn may_read_data<'a>(
        &mut self,
        id: EntityId,
        component: &'a str,
    ) -> wasmtime::Result<DataAccess<'a>> {
        self.may_data(Side::Read, id, component)
    }

    /// Fails (a trap naming the component, or the entity) unless the
    /// instance may write `component` of entity `id`.
    pub(crate) fn may_write_data<'a>(
        &mut self,
        id: EntityId,
        component: &'a str,
    ) -> wasmtime::Result<DataAccess<'a>> {
        self.may_data(Side::Write, id, component)
    }

    fn may_data<'a>(
        &mut self,
        side: Side,
        id: EntityId,
        component: &'a str,
    ) -> wasmtime::Result<DataAccess<'a>> {
        let (rule, verb) = match side {
            Side::Read => (&self.grants.data_reads, "read"),
            Side::Write => (&self.grants.data_writes, "write"),
        };
        if !rule.allows(component) {
            return Err(wasmtime::format_err!(
                "grants: script `{}` may not {verb} game data `{component}`: its grants' \
                 data_{verb}s allow {rule}",
                self.identity.name
            ));
        }
        match side {
            Side::Read => self.may_read(id).map(drop)?,
            Side::Write => self.may_write(id).map(drop)?,
        }
        Ok(DataAccess {
            entity: id,
            component,
        })
    }

    /// Fails (a trap naming the first one refused) unless the instance may
    /// read each of the game's components or resources `names`.
    pub(crate) fn may_read_game<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> wasmtime::Result<GameAccess> {
        self.may_game(Side::Read, names)
    }

    /// As [`Self::may_read_game`], for writes.
    pub(crate) fn may_write_game<'a>(
        &self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> wasmtime::Result<GameAccess> {
        self.may_game(Side::Write, names)
    }

    fn may_game<'a>(
        &self,
        side: Side,
        names: impl IntoIterator<Item = &'a str>,
    ) -> wasmtime::Result<GameAccess> {
        let (rule, verb) = match side {
            Side::Read => (&self.grants.data_reads, "read"),
            Side::Write => (&self.grants.data_writes, "write"),
        };
        for name in names {
            if !rule.allows(name) {
                return Err(wasmtime::format_err!(
                    "grants: script `{}` may not {verb} game data `{name}`: its grants' \
                     data_{verb}s allow {rule}",
                    self.identity.name
                ));
            }
        }
        Ok(GameAccess(()))
    }

    /// The positions in `ids` of the entities the instance may read (and
    /// has not despawned in this frame), and those ids: a query answers
    /// only those.
    pub(crate) fn readable_of(&mut self, ids: Vec<u32>) -> (Vec<usize>, Vec<u32>) {
        if !self.reads.restricted() && self.pending.is_empty() {
            return ((0..ids.len()).collect(), ids);
        }
        let (mut at, mut kept) = (Vec::new(), Vec::new());
        for (position, id) in ids.into_iter().enumerate() {
            let entity = EntityId::from(id);
            if !self.pending.despawned(entity) && self.may_read(entity).is_ok() {
                at.push(position);
                kept.push(id);
            }
        }
        (at, kept)
    }

    /// The instance spawned `id`: it may read and change it whatever its
    /// grants.
    pub(crate) fn spawned(&mut self, id: EntityId) {
        self.reads.spawned(id);
        self.writes.spawned(id);
    }

    /// The entities the instance spawned, while its reads or writes are
    /// checked (for the instance that succeeds it: a hot swap or a restart).
    pub(crate) fn spawned_entities(&self) -> Vec<EntityId> {
        let mut own = self.writes.own().to_vec();
        if own.is_empty() {
            own = self.reads.own().to_vec();
        }
        own
    }

    fn guard(&mut self, side: Side) -> &mut EntityGuard {
        match side {
            Side::Read => &mut self.reads,
            Side::Write => &mut self.writes,
        }
    }

    #[cold]
    fn check(&mut self, side: Side, id: EntityId) -> wasmtime::Result<()> {
        let allowed = match self.guard(side).decided(id) {
            Some(allowed) => allowed,
            None => {
                let Some(name) = self.entity_name_for_grants(id) else {
                    return Ok(());
                };
                self.guard(side).decide(id, &name)
            }
        };
        if allowed {
            return Ok(());
        }
        let name = self.entity_name_for_grants(id).unwrap_or_default();
        let (verb, key) = match side {
            Side::Read => ("read", "reads"),
            Side::Write => ("write", "writes"),
        };
        let rule = self.guard(side).rule();
        Err(wasmtime::format_err!(
            "grants: script `{}` may not {verb} entity `{name}` (id {}): it did not spawn it, \
             and its grants' {key} allow {rule}",
            self.identity.name,
            id.index(),
        ))
    }
}
