package node

import (
	"reflect"
	"testing"
)

// Every method of Store belongs to exactly one role interface, besides
// String and Close: a new method goes into the role whose callers need it,
// so that a part of the node can ask for the role alone.
func TestStoreIsItsRoles(t *testing.T) {
	roles := []reflect.Type{
		reflect.TypeFor[IdentityStore](),
		reflect.TypeFor[UserStore](),
		reflect.TypeFor[PartyStore](),
		reflect.TypeFor[CommitLog](),
		reflect.TypeFor[ContractStore](),
		reflect.TypeFor[ReadStore](),
		reflect.TypeFor[PackageStore](),
	}
	owner := map[string]string{"String": "Store", "Close": "Store"}
	for _, r := range roles {
		for i := range r.NumMethod() {
			m := r.Method(i).Name
			if o, ok := owner[m]; ok {
				t.Errorf("%s is in both %s and %s", m, o, r.Name())
			}
			owner[m] = r.Name()
		}
	}
	store := reflect.TypeFor[Store]()
	for i := range store.NumMethod() {
		if m := store.Method(i).Name; owner[m] == "" {
			t.Errorf("Store.%s belongs to no role interface", m)
		}
	}
	if store.NumMethod() != len(owner) {
		t.Errorf("Store has %d methods, its roles %d", store.NumMethod(), len(owner))
	}
}
