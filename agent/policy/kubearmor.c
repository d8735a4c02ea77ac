// SPDX-License-Identifier: GPL-2.0
/* A KubeArmorPolicy as a krsi profile (kubearmor.h). */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>
#include <yaml.h>

#include "lib/request.h"
#include "policy/kubearmor.h"
#include "policy/names.h"
#include "policy/profile.h"

/* What one import builds: the lists of the profile, and its notes. */
struct ka {
	yaml_document_t *doc;
	struct kubearmor_import *out;
	struct krsi_err *err;
	const char *label;
	const char *spec_action; /* spec.action, or NULL */
	json_object *deny, *allow;
	bool blocks, audits, allows; /* actions of the rules imported */
	bool any_block;		     /* the policy has a Block rule (the first pass found) */
	bool quiet;		     /* the first pass: no notes */
	int r;			     /* the first error */
};

enum action { BLOCK, AUDIT, ALLOW };

static yaml_node_t *node(struct ka *k, int id)
{
	return yaml_document_get_node(k->doc, id);
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* MAP's value for KEY, or NULL (also when MAP is not a mapping). */
static yaml_node_t *get(struct ka *k, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *s = scalar(node(k, p->key));

		if (s && !strcmp(s, key))
			return node(k, p->value);
	}
	return NULL;
}

__attribute__((format(printf, 3, 4))) static void note(struct ka *k, bool dropped,
							const char *fmt, ...)
{
	char line[512], **n;
	va_list ap;
	int len;

	if (k->quiet)
		return;
	len = snprintf(line, sizeof(line), "%s: ", dropped ? "dropped" : "ignored");
	va_start(ap, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	n = realloc(k->out->notes, (k->out->n_notes + 1) * sizeof(*n));
	if (!n || !(n[k->out->n_notes] = strdup(line))) {
		if (n)
			k->out->notes = n;
		k->r = err_set(k->err, -ENOMEM, "out of memory");
		return;
	}
	k->out->notes = n;
	k->out->n_notes++;
	k->out->n_dropped += dropped;
}

__attribute__((format(printf, 2, 3))) static int fail(struct ka *k, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!k->r)
		k->r = err_set(k->err, -EINVAL, "%s: %s", k->label, msg);
	return k->r;
}

/* Append S to LIST (of OBJ, created when missing) unless it is there. */
static void add(json_object *obj, const char *list, const char *s)
{
	json_object *a;

	if (!json_object_object_get_ex(obj, list, &a)) {
		a = json_object_new_array();
		json_object_object_add(obj, list, a);
	}
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(a, i)), s))
			return;
	json_object_array_add(a, json_object_new_string(s));
}

static int parse_action(struct ka *k, const char *s, const char *where, enum action *ret)
{
	if (!strcmp(s, "Block"))
		*ret = BLOCK;
	else if (!strcmp(s, "Audit"))
		*ret = AUDIT;
	else if (!strcmp(s, "Allow"))
		*ret = ALLOW;
	else
		return fail(k, "%s: action \"%s\": expected Allow, Audit or Block", where, s);
	return 0;
}

/* The action of a rule: its own, else its section's, else spec.action. */
static int rule_action(struct ka *k, yaml_node_t *rule, yaml_node_t *section, const char *where,
		       enum action *ret)
{
	yaml_node_t *a = get(k, rule, "action");
	const char *s;

	if (!a)
		a = get(k, section, "action");
	s = a ? scalar(a) : k->spec_action;
	if (a && !s)
		return fail(k, "%s: \"action\": expected a string", where);
	if (!s)
		return fail(k, "%s: no action (the rule's, its section's or spec.action)", where);
	return parse_action(k, s, where, ret);
}

/* Whether a rule of action A is imported: an Audit rule beside Block rules is not. */
static bool take(struct ka *k, enum action a)
{
	return a != AUDIT || !k->any_block;
}

static void took(struct ka *k, enum action a)
{
	k->blocks |= a == BLOCK;
	k->audits |= a == AUDIT;
	k->allows |= a == ALLOW;
}

/* Notes for a rule's fields that krsi does not take. */
static void rule_fields(struct ka *k, yaml_node_t *rule, const char *where)
{
	static const char *const known[] = { "path", "dir", "recursive", "readOnly", "action",
					      "protocol", "capability", "fromSource", "ownerOnly",
					      "severity", "tags", "message" };
	static const char *const info[] = { "severity", "tags", "message" };

	if (get(k, rule, "fromSource"))
		note(k, true, "%s.fromSource: krsi applies a profile to every process of the "
		     "container, not per binary; the rule is kept for every process", where);
	if (get(k, rule, "ownerOnly"))
		note(k, true, "%s.ownerOnly: krsi has no owner condition; the rule is kept for "
		     "every user", where);
	for (size_t i = 0; i < ARRAY_SIZE(info); i++)
		if (get(k, rule, info[i]))
			note(k, false, "%s.%s: krsi's events carry no %s", where, info[i], info[i]);
	for (yaml_node_pair_t *p = rule->data.mapping.pairs.start; p < rule->data.mapping.pairs.top;
	     p++) {
		const char *key = scalar(node(k, p->key));
		size_t i;

		for (i = 0; key && i < ARRAY_SIZE(known) && strcmp(key, known[i]); i++)
			;
		if (key && i == ARRAY_SIZE(known))
			note(k, true, "%s.%s: not a field krsi knows", where, key);
	}
}

static bool truthy(struct ka *k, yaml_node_t *rule, const char *key, const char *where)
{
	yaml_node_t *v = get(k, rule, key);
	const char *s = scalar(v);

	if (!v)
		return false;
	if (s && (!strcmp(s, "true") || !strcmp(s, "false")))
		return !strcmp(s, "true");
	fail(k, "%s.%s: expected true or false", where, key);
	return false;
}

/* An absolute path krsi takes: "/..." without a trailing "/" (but "/" itself), in BUF. */
static int path_of(struct ka *k, yaml_node_t *rule, const char *key, bool dir, const char *where,
		   char *buf, size_t size)
{
	const char *s = scalar(get(k, rule, key)), *reason;
	char check[4096 + 2];
	size_t n;

	if (!s)
		return fail(k, "%s: no \"%s\" (a string)", where, key);
	n = strlen(s);
	if (s[0] != '/' || n >= size)
		return fail(k, "%s.%s \"%s\": expected an absolute path", where, key, s);
	memcpy(buf, s, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	/* The agent's own check of a rule's path: what it would refuse is refused here. */
	if (profile_normalize_path(buf, dir, check, sizeof(check), &reason) < 0)
		return fail(k, "%s.%s \"%s\": %s", where, key, s, reason);
	return 0;
}

/*
 * One rule of a list, its action known: ONE checks and adds it. ALLOW_WHY, when not NULL, is
 * why an Allow rule of this list has no krsi form (it is then dropped with that reason).
 */
struct rule_list {
	const char *list;      /* "matchPaths" */
	const char *allow_why; /* NULL: Allow rules are imported */
	void (*one)(struct ka *k, yaml_node_t *rule, const char *where, enum action a,
		    const void *arg);
	const void *arg;
};

/* Every rule of SECTION's list L: its action, its fields' notes, then L->one. */
static void rules(struct ka *k, yaml_node_t *section, const char *sname, const struct rule_list *l)
{
	yaml_node_t *seq = get(k, section, l->list);
	int i = 0;

	if (!seq)
		return;
	if (seq->type != YAML_SEQUENCE_NODE) {
		fail(k, "spec.%s.%s: expected a list", sname, l->list);
		return;
	}
	for (yaml_node_item_t *it = seq->data.sequence.items.start;
	     it < seq->data.sequence.items.top && !k->r; it++, i++) {
		yaml_node_t *rule = node(k, *it);
		char where[96];
		enum action a = BLOCK;

		snprintf(where, sizeof(where), "spec.%s.%s[%d]", sname, l->list, i);
		if (!rule || rule->type != YAML_MAPPING_NODE) {
			fail(k, "%s: expected a mapping", where);
			return;
		}
		if (rule_action(k, rule, section, where, &a) < 0)
			return;
		rule_fields(k, rule, where);
		if (a == ALLOW && l->allow_why) {
			note(k, true, "%s: Allow: %s", where, l->allow_why);
			continue;
		}
		if (!take(k, a)) {
			note(k, true, "%s: an Audit rule in a policy with Block rules: a krsi "
			     "profile has one mode", where);
			continue;
		}
		l->one(k, rule, where, a, l->arg);
		if (!k->r)
			took(k, a);
	}
}

/* Which path rules a list holds: process or file, paths or directories (path_rule's ARG). */
struct path_list {
	bool file, dirs;
};

/* A rule of process or file matchPaths or matchDirectories (ARG: its struct path_list). */
static void path_rule(struct ka *k, yaml_node_t *rule, const char *where, enum action a,
		      const void *arg)
{
	const struct path_list *pl = arg;
	bool file = pl->file, dirs = pl->dirs, ro;
	const char *kinds[2] = { NULL, NULL };
	char path[4096];

	if (path_of(k, rule, dirs ? "dir" : "path", dirs, where, path, sizeof(path)) < 0)
		return;
	ro = file && truthy(k, rule, "readOnly", where);
	if (dirs && !truthy(k, rule, "recursive", where))
		note(k, true, "%s: %s without recursive: krsi's directory rules cover the whole "
		     "tree below %s", where, path, path);
	if (k->r)
		return;
	if (!file)
		kinds[0] = dirs ? "exec_dirs" : "exec";
	else if (a == ALLOW)
		kinds[0] = dirs ? "read_dirs" : "read", kinds[1] = ro ? NULL :
							dirs ? "write_dirs" : "write";
	else
		kinds[0] = dirs ? "write_dirs" : "write", kinds[1] = ro ? NULL :
							dirs ? "read_dirs" : "read";
	for (int j = 0; j < 2; j++)
		if (kinds[j])
			add(a == ALLOW ? k->allow : k->deny, kinds[j], path);
}

/* A rule of matchProtocols: tcp, udp, icmp or raw as socket rules. */
static void protocol_rule(struct ka *k, yaml_node_t *rule, const char *where, enum action a,
			  const void *arg)
{
	static const struct {
		const char *name, *rules[3];
	} map[] = {
		{ "tcp", { "AF_INET:SOCK_STREAM", "AF_INET6:SOCK_STREAM" } },
		{ "udp", { "AF_INET:SOCK_DGRAM", "AF_INET6:SOCK_DGRAM" } },
		{ "icmp", { "AF_INET:SOCK_RAW", "AF_INET6:SOCK_RAW" } },
		{ "raw", { "AF_INET:SOCK_RAW", "AF_INET6:SOCK_RAW", "AF_PACKET" } },
	};
	const char *proto = scalar(get(k, rule, "protocol"));
	size_t m;

	for (m = 0; proto && m < ARRAY_SIZE(map) && strcasecmp(map[m].name, proto); m++)
		;
	if (!proto || m == ARRAY_SIZE(map)) {
		fail(k, "%s.protocol %s: expected tcp, udp, icmp or raw", where,
		     proto ? proto : "(none)");
		return;
	}
	if (m == 2)
		note(k, true, "%s: icmp: krsi's socket rules have no protocol: raw sockets are "
		     "denied, ICMP datagram (ping) sockets are not", where);
	for (int j = 0; j < 3 && map[m].rules[j]; j++)
		add(k->deny, "socket", map[m].rules[j]);
}

/* A rule of matchCapabilities: "net_raw" or "CAP_NET_RAW". */
static void capability_rule(struct ka *k, yaml_node_t *rule, const char *where, enum action a,
			    const void *arg)
{
	const char *cap = scalar(get(k, rule, "capability"));
	char name[64];
	size_t n;

	if (!cap || !*cap || strlen(cap) > 40) {
		fail(k, "%s: no \"capability\" (a name such as net_raw)", where);
		return;
	}
	n = strncasecmp(cap, "CAP_", 4) ? (size_t)snprintf(name, sizeof(name), "CAP_") : 0;
	for (const char *p = cap; *p; p++)
		name[n++] = toupper((unsigned char)*p);
	name[n] = 0;
	if (names_cap(name) < 0) {
		fail(k, "%s.capability %s: not a Linux capability", where, cap);
		return;
	}
	add(k->deny, "capabilities", name);
}

/* Notes for SECTION's fields other than those in KNOWN. */
static void section_fields(struct ka *k, yaml_node_t *section, const char *sname,
			   const char *const *known, size_t n_known)
{
	if (section->type != YAML_MAPPING_NODE) {
		fail(k, "spec.%s: expected a mapping", sname);
		return;
	}
	for (yaml_node_pair_t *p = section->data.mapping.pairs.start;
	     p < section->data.mapping.pairs.top; p++) {
		const char *key = scalar(node(k, p->key));
		size_t i;

		for (i = 0; key && i < n_known && strcmp(key, known[i]); i++)
			;
		if (!key || i < n_known)
			continue;
		if (!strcmp(key, "matchPatterns"))
			note(k, true, "spec.%s.matchPatterns: krsi has no glob patterns; add the "
			     "paths or directories they stand for", sname);
		else if (!strcmp(key, "severity") || !strcmp(key, "tags") || !strcmp(key, "message"))
			note(k, false, "spec.%s.%s: krsi's events carry no %s", sname, key, key);
		else
			note(k, true, "spec.%s.%s: not a field krsi knows", sname, key);
	}
}

static void spec(struct ka *k, yaml_node_t *sp)
{
	static const char *const paths[] = { "matchPaths", "matchDirectories", "action" };
	static const char *const net[] = { "matchProtocols", "action" };
	static const char *const caps[] = { "matchCapabilities", "action" };
	yaml_node_t *a = get(k, sp, "action"), *s;

	k->spec_action = scalar(a);
	if (a && !k->spec_action) {
		fail(k, "spec.action: expected a string");
		return;
	}
	if ((s = get(k, sp, "process"))) {
		section_fields(k, s, "process", paths, ARRAY_SIZE(paths));
		rules(k, s, "process", &(struct rule_list){ "matchPaths", NULL, path_rule,
							    &(struct path_list){ false, false } });
		rules(k, s, "process", &(struct rule_list){ "matchDirectories", NULL, path_rule,
							    &(struct path_list){ false, true } });
	}
	if ((s = get(k, sp, "file")) && !k->r) {
		section_fields(k, s, "file", paths, ARRAY_SIZE(paths));
		rules(k, s, "file", &(struct rule_list){ "matchPaths", NULL, path_rule,
							 &(struct path_list){ true, false } });
		rules(k, s, "file", &(struct rule_list){ "matchDirectories", NULL, path_rule,
							 &(struct path_list){ true, true } });
	}
	if ((s = get(k, sp, "network")) && !k->r) {
		section_fields(k, s, "network", net, ARRAY_SIZE(net));
		rules(k, s, "network",
		      &(struct rule_list){ "matchProtocols", "krsi's allow lists name addresses "
					   "(connect, bind), not protocols", protocol_rule, NULL });
	}
	if ((s = get(k, sp, "capabilities")) && !k->r) {
		section_fields(k, s, "capabilities", caps, ARRAY_SIZE(caps));
		rules(k, s, "capabilities",
		      &(struct rule_list){ "matchCapabilities", "krsi has deny lists of "
					   "capabilities only", capability_rule, NULL });
	}
	for (yaml_node_pair_t *p = sp->data.mapping.pairs.start; p < sp->data.mapping.pairs.top;
	     p++) {
		const char *key = scalar(node(k, p->key));

		if (!key || !strcmp(key, "process") || !strcmp(key, "file") ||
		    !strcmp(key, "network") || !strcmp(key, "capabilities") ||
		    !strcmp(key, "action"))
			continue;
		if (!strcmp(key, "selector"))
			note(k, false, "spec.selector: krsi gives a container its profile by the "
			     "annotation org.krsi.profile (or krsictl assign), not by labels");
		else if (!strcmp(key, "severity") || !strcmp(key, "tags") || !strcmp(key, "message"))
			note(k, false, "spec.%s: krsi's events carry no %s", key, key);
		else if (!strcmp(key, "syscalls"))
			note(k, true, "spec.syscalls: krsi has no system call rules (use the rule "
			     "kinds, or seccomp)");
		else if (!strcmp(key, "apparmor"))
			note(k, true, "spec.apparmor: an AppArmor profile's text has no krsi form");
		else
			note(k, true, "spec.%s: not a field krsi knows", key);
	}
}

/* The document's one KubeArmorPolicy: its kind, apiVersion and metadata checked. */
static yaml_node_t *policy(struct ka *k, const char **ret_name)
{
	yaml_node_t *root = yaml_document_get_root_node(k->doc), *md, *sp;
	const char *kind, *api, *ns;

	if (!root || root->type != YAML_MAPPING_NODE) {
		fail(k, "expected a KubeArmorPolicy (a YAML mapping)");
		return NULL;
	}
	kind = scalar(get(k, root, "kind"));
	api = scalar(get(k, root, "apiVersion"));
	if (!kind || strcmp(kind, "KubeArmorPolicy")) {
		fail(k, "kind %s: expected KubeArmorPolicy%s", kind ? kind : "(none)",
		     kind && !strcmp(kind, "KubeArmorHostPolicy") ?
			     " (a host policy applies to the node, which krsi does not confine)" : "");
		return NULL;
	}
	if (!api || strncmp(api, "security.kubearmor.com/", 23)) {
		fail(k, "apiVersion %s: expected security.kubearmor.com/v1", api ? api : "(none)");
		return NULL;
	}
	md = get(k, root, "metadata");
	*ret_name = scalar(get(k, md, "name"));
	if ((ns = scalar(get(k, md, "namespace"))))
		note(k, false, "metadata.namespace %s: a krsi profile applies to the containers "
		     "that name it, in any namespace", ns);
	sp = get(k, root, "spec");
	if (!sp || sp->type != YAML_MAPPING_NODE) {
		fail(k, "spec: expected a mapping");
		return NULL;
	}
	return sp;
}

static void reset(struct ka *k)
{
	json_object_put(k->deny);
	json_object_put(k->allow);
	k->deny = json_object_new_object();
	k->allow = json_object_new_object();
	k->blocks = k->audits = k->allows = false;
}

/* The profile document from K's lists. */
static json_object *profile_doc(struct ka *k, const char *name, const char *policy_name)
{
	json_object *p = json_object_new_object();
	char desc[256];

	json_object_object_add(p, "name", json_object_new_string(name));
	json_object_object_add(p, "version", json_object_new_int(1));
	if (k->allows)
		json_object_object_add(p, "schema", json_object_new_int(2));
	json_object_object_add(p, "mode", json_object_new_string(
						  k->audits && !k->blocks ? "audit" : "enforce"));
	snprintf(desc, sizeof(desc), "Imported from KubeArmorPolicy %s by krsictl profile import",
		 policy_name ? policy_name : name);
	json_object_object_add(p, "description", json_object_new_string(desc));
	json_object_object_foreach(k->deny, key, val)
		json_object_object_add(p, key, json_object_get(val));
	if (k->allows)
		json_object_object_add(p, "allow", json_object_get(k->allow));
	return p;
}

int kubearmor_import(const char *label, const char *text, size_t len, const char *name,
		     struct kubearmor_import *ret, struct krsi_err *err)
{
	struct ka k = { .out = ret, .err = err, .label = label };
	yaml_parser_t parser;
	yaml_document_t doc, more;
	const char *policy_name = NULL;
	yaml_node_t *sp;
	bool loaded = false;

	memset(ret, 0, sizeof(*ret));
	if (len > KUBEARMOR_FILE_MAX)
		return err_set(err, -EFBIG, "%s: larger than %d bytes", label, KUBEARMOR_FILE_MAX);
	if (!yaml_parser_initialize(&parser))
		return err_set(err, -ENOMEM, "%s: out of memory", label);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		fail(&k, "not YAML: %s at line %zu, column %zu",
		     parser.problem ? parser.problem : "unreadable",
		     parser.problem_mark.line + 1, parser.problem_mark.column + 1);
		goto out;
	}
	loaded = true;
	k.doc = &doc;
	if (!yaml_document_get_root_node(&doc)) {
		fail(&k, "empty: expected a KubeArmorPolicy");
		goto out;
	}
	if (!yaml_parser_load(&parser, &more)) {
		fail(&k, "not YAML after the first document: %s",
		     parser.problem ? parser.problem : "unreadable");
		goto out;
	}
	if (yaml_document_get_root_node(&more)) {
		yaml_document_delete(&more);
		fail(&k, "more than one document: import one KubeArmorPolicy at a time");
		goto out;
	}
	yaml_document_delete(&more);
	sp = policy(&k, &policy_name);
	if (!sp)
		goto out;
	if (!name)
		name = policy_name;
	if (!name || !profile_name_valid(name)) {
		fail(&k, "metadata.name %s: not a krsi profile name (1 to %d of a-z, 0-9, '.', "
		     "'_', '-'); give one with --name", name ? name : "(none)", KRSI_NAME_MAX - 1);
		goto out;
	}
	/* Two passes: the first learns whether a Block rule exists anywhere, so that the second
	 * drops every Audit rule beside one, wherever it comes. */
	k.quiet = true;
	reset(&k);
	spec(&k, sp);
	k.any_block = k.blocks;
	k.quiet = false;
	if (!k.r) {
		reset(&k);
		spec(&k, sp);
	}
	if (!k.r)
		ret->profile = profile_doc(&k, name, policy_name);
out:
	json_object_put(k.deny);
	json_object_put(k.allow);
	if (loaded)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (k.r)
		kubearmor_import_clear(ret);
	return k.r;
}

void kubearmor_import_clear(struct kubearmor_import *r)
{
	json_object_put(r->profile);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}
