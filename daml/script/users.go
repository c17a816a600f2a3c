package script

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/ledger-cli/ledger/daml/value"
)

const um = "Daml.Script.Internal.Questions.UserManagement:"

// userIDPattern is the Ledger API's user id: 1 to 128 characters of
// [a-zA-Z0-9@^$.!`\-#+'~_|:].
var userIDPattern = regexp.MustCompile("^[a-zA-Z0-9@^$.!`\\-#+'~_|:]{1,128}$")

// userCommand performs the user-management commands; their answers are
// None for a user that does not exist (or already exists, for CreateUser).
func (st *run) userCommand(q *questionValue) (value.Value, error) {
	p := q.payload
	if q.name == "ValidateUserId" {
		name := text(field(p, "name"))
		if userIDPattern.MatchString(name) {
			return value.Optional{}, nil
		}
		return value.Optional{Value: value.Text(fmt.Sprintf("User ID %q does not match the regex [a-zA-Z0-9@^$.!`\\-#+'~_|:]{1,128}", name))}, nil
	}
	ul, ok := st.ledger.(UserLedger)
	if !ok {
		return nil, &Failure{Kind: "command", Command: q.name, Message: q.name + ": this ledger does not manage users"}
	}
	ix := st.r.types
	uid := func(v value.Value) string {
		if r, ok := v.(*value.Record); ok && len(r.Fields) == 1 {
			return text(r.Fields[0].Value)
		}
		return text(v)
	}
	none := func(err error) (value.Value, error) {
		if errors.Is(err, ErrUserNotFound) || errors.Is(err, ErrUserExists) {
			return value.Optional{}, nil
		}
		return nil, st.commandError(q.name, err)
	}
	rightsOf := func(v value.Value) []UserRight {
		var out []UserRight
		for _, r := range list(v) {
			if x, ok := r.(*value.Variant); ok {
				p, _ := x.Value.(value.Party)
				out = append(out, UserRight{Kind: x.Constructor, Party: string(p)})
			}
		}
		return out
	}
	rightsValue := func(rs []UserRight) value.Value {
		out := make([]value.Value, len(rs))
		for i, r := range rs {
			var arg value.Value = value.Unit{}
			if r.Kind == "CanActAs" || r.Kind == "CanReadAs" {
				arg = value.Party(r.Party)
			}
			out[i] = ix.variant(um+"UserRight", r.Kind, arg)
		}
		return value.NewList(out...)
	}
	userValue := func(u User) value.Value {
		var pp value.Optional
		if u.PrimaryParty != "" {
			pp.Value = value.Party(u.PrimaryParty)
		}
		return ix.record(um+"User", ix.record(um+"UserId", value.Text(u.ID)), pp)
	}
	switch q.name {
	case "CreateUser":
		u := field(p, "user")
		user := User{ID: uid(field(u, "userId"))}
		if o, ok := field(u, "primaryParty").(value.Optional); ok && o.Value != nil {
			pp, _ := o.Value.(value.Party)
			user.PrimaryParty = string(pp)
		}
		if err := ul.CreateUser(st.ctx, user, rightsOf(field(p, "rights"))); err != nil {
			return none(err)
		}
		return value.Optional{Value: value.Unit{}}, nil
	case "GetUser":
		u, err := ul.GetUser(st.ctx, uid(field(p, "userId")))
		if err != nil {
			return none(err)
		}
		return value.Optional{Value: userValue(u)}, nil
	case "DeleteUser":
		if err := ul.DeleteUser(st.ctx, uid(field(p, "userId"))); err != nil {
			return none(err)
		}
		return value.Optional{Value: value.Unit{}}, nil
	case "ListAllUsers":
		us, err := ul.ListUsers(st.ctx)
		if err != nil {
			return nil, st.commandError(q.name, err)
		}
		out := make([]value.Value, len(us))
		for i, u := range us {
			out[i] = userValue(u)
		}
		return value.NewList(out...), nil
	case "GrantUserRights", "RevokeUserRights", "ListUserRights":
		id := uid(field(p, "userId"))
		var rs []UserRight
		var err error
		switch q.name {
		case "GrantUserRights":
			rs, err = ul.GrantUserRights(st.ctx, id, rightsOf(field(p, "rights")))
		case "RevokeUserRights":
			rs, err = ul.RevokeUserRights(st.ctx, id, rightsOf(field(p, "rights")))
		default:
			rs, err = ul.ListUserRights(st.ctx, id)
		}
		if err != nil {
			return none(err)
		}
		return value.Optional{Value: rightsValue(rs)}, nil
	}
	return nil, st.malformed(q)
}
