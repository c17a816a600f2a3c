package ledgerapi

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// metaResource is what ObjectMetaTests.scala needs of a resource with
// ObjectMeta: parties (local_metadata) or users (metadata).
type metaResource struct {
	idPath, versionPath, annotationsPath, shortPath string
	concurrentCode, invalidUpdateCode               string
	// create makes a resource with annotations and answers its id and
	// metadata, or the error answer.
	create func(t *testing.T, annotations map[string]string) (string, answer)
	// updateBody is the PATCH path and body of an update.
	update func(id string, annotations map[string]string, version string, paths []string) (string, map[string]any)
	// metadata reads the metadata of an update's or get's answer.
	metadata func(t *testing.T, body []byte) ledgerapi.ObjectMeta
	get      func(t *testing.T, id string) ledgerapi.ObjectMeta
}

// objectMetaTests runs ObjectMetaTests.scala's 15 cases on r.
func objectMetaTests(t *testing.T, p *participant, r metaResource) {
	const maxAnnotationsSize = 256 * 1024
	valueExceedingLimit := strings.Repeat("a", maxAnnotationsSize)
	largestAllowedValue := strings.Repeat("a", maxAnnotationsSize-1)
	const invalidKey, validKey = ".aaaa.management.daml/foo_", "0-aaaa.management.daml/foo"
	fresh := func(t *testing.T, annotations map[string]string) (string, ledgerapi.ObjectMeta) {
		t.Helper()
		id, a := r.create(t, annotations)
		if a.status != 200 {
			t.Fatalf("create: %d %s", a.status, a.body)
		}
		return id, r.metadata(t, a.body)
	}
	update := func(t *testing.T, id string, annotations map[string]string, version string, paths ...string) ledgerapi.ObjectMeta {
		t.Helper()
		path, body := r.update(id, annotations, version, paths)
		a := p.do(t, "PATCH", path, p.admin, body)
		if a.status != 200 {
			t.Fatalf("update %v: %d %s", paths, a.status, a.body)
		}
		return r.metadata(t, a.body)
	}
	updateFails := func(t *testing.T, id string, annotations map[string]string, version string, paths []string, f failure) {
		t.Helper()
		path, body := r.update(id, annotations, version, paths)
		p.mustFail(t, "PATCH", path, body, f)
	}
	createFails := func(t *testing.T, annotations map[string]string, f failure) {
		t.Helper()
		_, a := r.create(t, annotations)
		e, err := ledgerapi.DecodeError(a.body)
		if a.status == 200 || err != nil {
			t.Fatalf("create with %d annotations: %d %s, want %s", len(annotations), a.status, a.body, f.code)
		}
		checkError(t, e, f)
	}
	sameAnn := func(t *testing.T, what string, got, want map[string]string) {
		t.Helper()
		if !sameAnnotations(got, want) {
			t.Errorf("%s: annotations %v, want %v", what, got, want)
		}
	}
	invalidUpdate := failure{code: r.invalidUpdateCode}

	t.Run("AllowSpecifyingResourceVersionAndResourceIdInUpdateMask", func(t *testing.T) {
		id, meta := fresh(t, nil)
		got := update(t, id, map[string]string{}, "", r.idPath, r.versionPath)
		sameAnn(t, "after the update", got.Annotations, meta.Annotations)
	})
	t.Run("UpdatingResourceUtilizingConcurrentChangeControl", func(t *testing.T) {
		id, meta := fresh(t, nil)
		rv1 := meta.ResourceVersion
		m2 := update(t, id, map[string]string{"k1": "v1", "k2": "v2"}, "", r.annotationsPath)
		sameAnn(t, "first update", m2.Annotations, map[string]string{"k1": "v1", "k2": "v2"})
		if rv1 == "" || m2.ResourceVersion == "" || rv1 == m2.ResourceVersion {
			t.Errorf("A resource's resource_version before and after an update must be different and non empty: %q, %q", rv1, m2.ResourceVersion)
		}
		updateFails(t, id, map[string]string{"k1": "v1", "k2": "v2"}, rv1, []string{r.annotationsPath}, failure{code: r.concurrentCode})
		m3 := update(t, id, map[string]string{"k1": "v1a", "k2": "", "k3": "v3"}, m2.ResourceVersion, r.annotationsPath)
		sameAnn(t, "update at the current version", m3.Annotations, map[string]string{"k1": "v1a", "k3": "v3"})
		if m3.ResourceVersion == "" || m3.ResourceVersion == m2.ResourceVersion {
			t.Errorf("resource_version %q after %q", m3.ResourceVersion, m2.ResourceVersion)
		}
	})
	t.Run("RaceConditionUpdateResourceAnnotations", func(t *testing.T) {
		id, _ := fresh(t, nil)
		want := map[string]string{}
		var wg sync.WaitGroup
		for i := 1; i <= 10; i++ {
			key := "key" + itoa(i)
			want[key] = "a"
			wg.Go(func() {
				path, body := r.update(id, map[string]string{key: "a"}, "", []string{r.annotationsPath})
				p.do(t, "PATCH", path, p.admin, body)
			})
		}
		wg.Wait()
		sameAnn(t, "after ten concurrent updates", r.get(t, id).Annotations, want)
	})
	t.Run("FailingUpdateRequestsWhenUpdatePathIsDuplicated", func(t *testing.T) {
		id, _ := fresh(t, nil)
		updateFails(t, id, map[string]string{"k1": "v1"}, "", []string{r.annotationsPath, r.annotationsPath}, invalidUpdate)
	})
	t.Run("FailingUpdateRequestWhenNoUpdatePaths", func(t *testing.T) {
		id, _ := fresh(t, nil)
		updateFails(t, id, map[string]string{"k1": "v1"}, "", []string{}, invalidUpdate)
	})
	t.Run("FAilingUpdateRequestWhenUpdateMaskHaveUnknownFieldPath", func(t *testing.T) {
		id, _ := fresh(t, nil)
		for _, path := range []string{"unknown_field", "aaa!bbb", ""} {
			updateFails(t, id, map[string]string{}, "", []string{path}, invalidUpdate)
		}
	})
	t.Run("FailingToCreateResourceWhenAnnotationsValueIsEmpty", func(t *testing.T) {
		createFails(t, map[string]string{"k2": ""}, failure{code: "INVALID_ARGUMENT", cause: "value of an annotation is empty"})
	})
	t.Run("TestAnnotationsKeySyntaxOnResourceCreation", func(t *testing.T) {
		createFails(t, map[string]string{invalidKey: "a"}, failure{code: "INVALID_ARGUMENT", cause: "has invalid syntax"})
	})
	t.Run("TestAnnotationsSizeLimitsOnResourceCreation", func(t *testing.T) {
		createFails(t, map[string]string{"a": valueExceedingLimit}, failure{code: "INVALID_ARGUMENT", cause: "larger than the limit of 256kb"})
	})
	t.Run("UpdateAnnotationsUsingNonEmptyMap", func(t *testing.T) {
		for _, path := range []string{r.annotationsPath, r.shortPath} {
			id, _ := fresh(t, map[string]string{"k1": "v1", "k2": "v2", "k3": "v3"})
			got := update(t, id, map[string]string{"k1": "v1a", "k3": "", "k4": "v4", "k5": ""}, "", path)
			sameAnn(t, "updating annotations by "+path, got.Annotations, map[string]string{"k1": "v1a", "k2": "v2", "k4": "v4"})
		}
	})
	t.Run("UpdateAnnotationsUsingEmptyMap", func(t *testing.T) {
		id, _ := fresh(t, map[string]string{"k1": "v1", "k2": "v2", "k3": "v3"})
		for _, path := range []string{r.annotationsPath, r.shortPath} {
			got := update(t, id, map[string]string{}, "", path)
			sameAnn(t, "updating the annotations by "+path, got.Annotations, map[string]string{"k1": "v1", "k2": "v2", "k3": "v3"})
		}
	})
	t.Run("TestAnnotationsKeySyntaxOnResourceUpdateWhenAddingKey", func(t *testing.T) {
		id, _ := fresh(t, map[string]string{validKey: "a"})
		updateFails(t, id, map[string]string{invalidKey: "a"}, "", []string{r.annotationsPath}, failure{code: "INVALID_ARGUMENT", cause: "has invalid syntax"})
	})
	t.Run("TestAnnotationsKeySyntaxOnResourceUpdateEvenWhenDeletingNonExistentKey", func(t *testing.T) {
		id, _ := fresh(t, nil)
		updateFails(t, id, map[string]string{invalidKey: ""}, "", []string{r.annotationsPath}, failure{code: "INVALID_ARGUMENT", cause: "has invalid syntax"})
	})
	t.Run("NotCountingEmptyValuedKeysToTheAnnotationsSizeLimitOnUpdate", func(t *testing.T) {
		id, _ := fresh(t, nil)
		got := update(t, id, map[string]string{"a": largestAllowedValue, "cc": ""}, "", r.annotationsPath)
		sameAnn(t, "deletions are not counted towards the limit", got.Annotations, map[string]string{"a": largestAllowedValue})
	})
	t.Run("TestAnnotationsMaxSizeLimitsWhenUpdatingResource", func(t *testing.T) {
		id, _ := fresh(t, map[string]string{"a": largestAllowedValue})
		updateFails(t, id, map[string]string{"a": valueExceedingLimit}, "", []string{r.annotationsPath},
			failure{code: "INVALID_ARGUMENT", cause: "larger than the limit of 256kb"})
	})
}

// PartyManagementServiceObjectMetaIT.scala: ObjectMetaTests on parties.
func TestPartyManagementServiceObjectMetaIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	details := func(t *testing.T, body []byte) ledgerapi.ObjectMeta {
		t.Helper()
		var resp struct {
			PartyDetails ledgerapi.PartyDetails `json:"partyDetails"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return resp.PartyDetails.LocalMetadata
	}
	objectMetaTests(t, p, metaResource{
		idPath: "party", versionPath: "local_metadata.resource_version",
		annotationsPath: "local_metadata.annotations", shortPath: "local_metadata",
		concurrentCode: "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED", invalidUpdateCode: "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
		create: func(t *testing.T, annotations map[string]string) (string, answer) {
			if annotations == nil {
				annotations = map[string]string{}
			}
			a := p.do(t, "POST", "/v2/parties", p.admin, map[string]any{"partyIdHint": p.next("party"),
				"localMetadata": map[string]any{"resourceVersion": "", "annotations": annotations}})
			var resp ledgerapi.AllocatePartyResponse
			_ = json.Unmarshal(a.body, &resp)
			return resp.PartyDetails.Party, a
		},
		update: func(id string, annotations map[string]string, version string, paths []string) (string, map[string]any) {
			return "/v2/parties/" + url.PathEscape(id), map[string]any{"partyDetails": map[string]any{"party": id, "isLocal": false,
				"localMetadata": map[string]any{"resourceVersion": version, "annotations": annotations}, "identityProviderId": ""},
				"updateMask": map[string]any{"paths": paths}}
		},
		metadata: details,
		get: func(t *testing.T, id string) ledgerapi.ObjectMeta {
			var resp ledgerapi.GetPartiesResponse
			p.ok(t, "GET", "/v2/parties/"+url.PathEscape(id), nil, &resp)
			if len(resp.PartyDetails) != 1 {
				t.Fatalf("party %s: %+v", id, resp)
			}
			return resp.PartyDetails[0].LocalMetadata
		},
	})
}

// UserManagementServiceObjectMetaIT.scala: ObjectMetaTests on users.
func TestUserManagementServiceObjectMetaIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	user := func(t *testing.T, body []byte) ledgerapi.ObjectMeta {
		t.Helper()
		var resp struct {
			User ledgerapi.User `json:"user"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return resp.User.Metadata
	}
	objectMetaTests(t, p, metaResource{
		idPath: "id", versionPath: "metadata.resource_version",
		annotationsPath: "metadata.annotations", shortPath: "metadata",
		concurrentCode: "CONCURRENT_USER_UPDATE_DETECTED", invalidUpdateCode: "INVALID_USER_UPDATE_REQUEST",
		create: func(t *testing.T, annotations map[string]string) (string, answer) {
			if annotations == nil {
				annotations = map[string]string{}
			}
			id := p.next("user")
			return id, p.do(t, "POST", "/v2/users", p.admin, map[string]any{"user": map[string]any{"id": id,
				"metadata": map[string]any{"resourceVersion": "", "annotations": annotations}}, "rights": []any{}})
		},
		update: func(id string, annotations map[string]string, version string, paths []string) (string, map[string]any) {
			return "/v2/users/" + url.PathEscape(id), map[string]any{"user": map[string]any{"id": id,
				"metadata": map[string]any{"resourceVersion": version, "annotations": annotations}},
				"updateMask": map[string]any{"paths": paths}}
		},
		metadata: user,
		get: func(t *testing.T, id string) ledgerapi.ObjectMeta {
			var resp ledgerapi.GetUserResponse
			p.ok(t, "GET", "/v2/users/"+url.PathEscape(id), nil, &resp)
			return resp.User.Metadata
		},
	})
}
