package ledgerapi

import (
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// IdentityProviderConfigServiceIT.scala. Get-, Update- and
// DeleteConfigInvalidArguments are GrpcOnly in the test tool (an empty id
// is another JSON route); the cases here are the rest.
func TestIdentityProviderConfigServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	type idp = map[string]any
	config := func(id, issuer string) idp {
		return idp{"identityProviderId": id, "isDeactivated": false, "issuer": issuer, "jwksUrl": "http://daml.com/jwks.json", "audience": ""}
	}
	create := func(t *testing.T, c idp) idp {
		t.Helper()
		var resp struct{ IdentityProviderConfig idp }
		p.ok(t, "POST", "/v2/idps", idp{"identityProviderConfig": c}, &resp)
		return resp.IdentityProviderConfig
	}
	fresh := func() idp { return config(p.next("idp"), p.next("issuer")) }
	with := func(c idp, k string, v any) idp {
		out := idp{}
		for kk, vv := range c {
			out[kk] = vv
		}
		out[k] = v
		return out
	}
	update := func(c idp, paths ...string) idp {
		return idp{"identityProviderConfig": c, "updateMask": idp{"paths": paths}}
	}
	same := func(t *testing.T, got, want idp) {
		t.Helper()
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v (config %v)", k, got[k], v, got)
			}
		}
	}

	t.Run("CreateConfigInvalidArguments", func(t *testing.T) {
		for _, c := range []struct {
			problem string
			config  idp
			code    string
		}{
			{"empty identity_provider_id", with(fresh(), "identityProviderId", ""), "MISSING_FIELD"},
			{"invalid identity_provider_id", with(fresh(), "identityProviderId", "!@"), "INVALID_FIELD"},
			{"empty issuer", with(fresh(), "issuer", ""), "MISSING_FIELD"},
			{"empty jwks_url", with(fresh(), "jwksUrl", ""), "MISSING_FIELD"},
			{"non valid jwks_url", with(fresh(), "jwksUrl", "url.com"), "INVALID_FIELD"},
		} {
			t.Run(c.problem, func(t *testing.T) {
				p.mustFail(t, "POST", "/v2/idps", idp{"identityProviderConfig": c.config}, failure{code: c.code})
			})
		}
		t.Run("empty identity_provider_config", func(t *testing.T) {
			p.mustFail(t, "POST", "/v2/idps", idp{}, failure{code: "MISSING_FIELD"})
		})
	})

	t.Run("CreateConfigSuccess", func(t *testing.T) {
		c := fresh()
		same(t, create(t, c), c)
		second := create(t, with(fresh(), "isDeactivated", true))
		if second["isDeactivated"] != true {
			t.Errorf("deactivated config created as %v", second)
		}
		p.mustFail(t, "POST", "/v2/idps", idp{"identityProviderConfig": with(c, "issuer", p.next("issuer"))},
			failure{code: "IDP_CONFIG_ALREADY_EXISTS"})
		p.mustFail(t, "POST", "/v2/idps", idp{"identityProviderConfig": with(fresh(), "issuer", c["issuer"])},
			failure{code: "IDP_CONFIG_ISSUER_ALREADY_EXISTS"})
	})

	t.Run("UpdateConfigSuccess", func(t *testing.T) {
		c, c2, c3 := create(t, fresh()), create(t, fresh()), create(t, fresh())
		path := "/v2/idps/" + c["identityProviderId"].(string)
		var resp struct{ IdentityProviderConfig idp }
		p.ok(t, "PATCH", path, update(with(c, "isDeactivated", true), "is_deactivated"), &resp)
		if resp.IdentityProviderConfig["isDeactivated"] != true {
			t.Errorf("is_deactivated not updated: %v", resp.IdentityProviderConfig)
		}
		p.ok(t, "PATCH", path, update(with(c, "jwksUrl", "http://daml.com/jwks2.json"), "jwks_url"), &resp)
		if resp.IdentityProviderConfig["jwksUrl"] != "http://daml.com/jwks2.json" {
			t.Errorf("jwks_url not updated: %v", resp.IdentityProviderConfig)
		}
		issuer := p.next("issuer")
		p.ok(t, "PATCH", path, update(with(c, "issuer", issuer), "issuer"), &resp)
		if resp.IdentityProviderConfig["issuer"] != issuer {
			t.Errorf("issuer not updated: %v", resp.IdentityProviderConfig)
		}
		p.mustFail(t, "PATCH", "/v2/idps/"+c3["identityProviderId"].(string), update(with(c3, "issuer", c2["issuer"]), "issuer"),
			failure{code: "IDP_CONFIG_ISSUER_ALREADY_EXISTS"})
	})

	t.Run("GetConfigSuccess", func(t *testing.T) {
		c := fresh()
		same(t, create(t, c), c)
		var resp struct{ IdentityProviderConfig idp }
		p.ok(t, "GET", "/v2/idps/"+c["identityProviderId"].(string), nil, &resp)
		same(t, resp.IdentityProviderConfig, c)
		p.mustFail(t, "GET", "/v2/idps/"+p.next("idp"), nil, failure{code: "IDP_CONFIG_NOT_FOUND"})
	})

	t.Run("ListConfig", func(t *testing.T) {
		id1, id2 := create(t, fresh())["identityProviderId"], create(t, fresh())["identityProviderId"]
		var resp struct{ IdentityProviderConfigs []idp }
		p.ok(t, "GET", "/v2/idps", nil, &resp)
		var ids []any
		for _, c := range resp.IdentityProviderConfigs {
			ids = append(ids, c["identityProviderId"])
		}
		if !slices.Contains(ids, id1) || !slices.Contains(ids, id2) {
			t.Errorf("list %v lacks %v or %v", ids, id1, id2)
		}
	})

	t.Run("DeleteConfigSuccess", func(t *testing.T) {
		id := create(t, fresh())["identityProviderId"].(string)
		p.ok(t, "DELETE", "/v2/idps/"+id, nil, nil)
		p.mustFail(t, "DELETE", "/v2/idps/"+id, nil, failure{code: "IDP_CONFIG_NOT_FOUND"})
	})
}
