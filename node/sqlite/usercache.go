package sqlite

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ledger-cli/ledger/node/ledger"
)

// userCache keeps the users and rights that authenticated requests load,
// so that a request does not cost four SQL statements before its own work.
//
// Consistency rests on a generation counter: every write that may change a
// user or a right bumps it after its transaction has ended, and an entry is
// used only while the generation it was read under is still current. An
// entry is tagged with the generation read before its rows, so rows read
// around a concurrent write are never served after that write.
type userCache struct {
	gen     atomic.Int64
	mu      sync.Mutex
	entries map[string]cachedUser
}

type cachedUser struct {
	gen    int64
	user   ledger.User
	rights []ledger.Right
}

// maxCachedUsers bounds the cache; it is emptied when full.
const maxCachedUsers = 4096

func (c *userCache) invalidate() { c.gen.Add(1) }

func (c *userCache) get(id string) (cachedUser, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	return e, ok && e.gen == c.gen.Load()
}

func (c *userCache) put(id string, e cachedUser) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCachedUsers {
		c.entries = make(map[string]cachedUser)
	}
	c.entries[id] = e
}

// UserAndRights returns a user and its rights as User and UserRights would,
// from memory when no user or right has been written since they were last
// read. What it returns is the caller's own to change.
func (s *Store) UserAndRights(ctx context.Context, id string) (ledger.User, []ledger.Right, error) {
	if e, ok := s.users.get(id); ok {
		u := e.user
		u.Annotations = maps.Clone(u.Annotations)
		return u, slices.Clone(e.rights), nil
	}
	gen := s.users.gen.Load()
	u, err := s.User(ctx, id)
	if err != nil {
		return ledger.User{}, nil, err
	}
	rights, err := s.UserRights(ctx, id)
	if err != nil {
		return ledger.User{}, nil, err
	}
	cached := u
	cached.Annotations = maps.Clone(u.Annotations)
	s.users.put(id, cachedUser{gen: gen, user: cached, rights: slices.Clone(rights)})
	return u, rights, nil
}
