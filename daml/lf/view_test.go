package lf

import "testing"

// pingPackage builds, by hand, the shape of Canton's Ping package.
func pingPackage(t *testing.T) *Package {
	t.Helper()
	text, party, unit := builtin(BuiltinText), builtin(BuiltinParty), builtin(BuiltinUnit)
	ping := DottedName{"Ping"}
	mod, dup := NewModule(Module{
		Name: DottedName{"Canton", "Internal", "Ping"},
		DataTypes: []*DataType{
			{Name: ping, Kind: DataRecord, Serializable: true,
				Fields: []Field{{"id", text}, {"initiator", party}, {"responder", party}}},
			{Name: DottedName{"Respond"}, Kind: DataRecord, Serializable: true},
		},
		Templates: []*Template{{
			Name: ping, Param: "this",
			Choices: []*Choice{
				{Name: "Respond", Consuming: true, ReturnType: unit,
					ArgBinder: Binder{Name: "arg", Type: con("Canton.Internal.Ping", "Respond")}},
				{Name: "Peek", Consuming: false, ReturnType: App(builtin(BuiltinOptional), builtin(BuiltinInt64))},
			},
			Key: &TemplateKey{Type: App(builtin(BuiltinList), party)},
		}},
	})
	if dup != "" {
		t.Fatalf("%s defined twice", dup)
	}
	return NewPackage(Package{ID: "p", Name: "ping", Version: "1.0.0", Modules: []*Module{mod}})
}

func TestTemplateSignature(t *testing.T) {
	p := pingPackage(t)
	s, ok := p.Template("Canton.Internal.Ping", "Ping")
	if !ok {
		t.Fatal("no template Ping")
	}
	if got, want := s.String(), "template Ping with id: Text; initiator: Party; responder: Party; key [Party]"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := s.Name.String(); got != "p:Canton.Internal.Ping:Ping" {
		t.Errorf("template id %s", got)
	}
	tests := []struct{ choice, want string }{
		{"Respond", "choice Respond : ()"},
		{"Peek", "nonconsuming choice Peek : Optional Int"},
	}
	for _, tt := range tests {
		c, ok := s.Choice(tt.choice)
		if !ok || c.String() != tt.want {
			t.Errorf("choice %s: got %q (found %v), want %q", tt.choice, c.String(), ok, tt.want)
		}
	}
	if _, ok := p.Template("Canton.Internal.Ping", "Pong"); ok {
		t.Error("found a template Pong")
	}
	if got := len(p.DataTypes()); got != 2 {
		t.Errorf("%d data types, want 2", got)
	}
	if got := p.ModuleNames(); len(got) != 1 || got[0] != "Canton.Internal.Ping" {
		t.Errorf("modules %v", got)
	}
}

func TestNewModuleReportsDuplicates(t *testing.T) {
	_, dup := NewModule(Module{Values: []*Value{{Name: DottedName{"x"}}, {Name: DottedName{"x"}}}})
	if dup != "x" {
		t.Errorf("duplicate %q, want x", dup)
	}
}
