package io.stalecheck.agent;

import io.stalecheck.agent.Model.Loc;
import io.stalecheck.agent.Model.Sec;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The violations seen (one entry per distinct pair of locations, with a count) and the writers. */
final class Report {
    static final String VERSION = "0.1.0";
    private static final int MAX_STACKS = 10_000;
    private static final int MAX_FRAMES = 24;

    /** One distinct violation: the first occurrence in full, and how often it happened. */
    static final class Violation {
        String kind;
        Sec sec;
        String varClass;
        String varField;
        boolean isStatic;
        int identityHash;
        String ownerThread;
        Loc entry;
        Loc end;
        StackTraceElement[] ownerStack;
        String intruderThread;
        Loc intruder;
        StackTraceElement[] intruderStack;
        final AtomicLong count = new AtomicLong();
    }

    private final Map<String, Violation> violations = new LinkedHashMap<>();
    private final AtomicInteger stacks = new AtomicInteger();
    final List<Sec> sections = new ArrayList<>();
    final List<String> notes = new ArrayList<>();
    final AtomicLong classes = new AtomicLong();
    final AtomicLong locations = new AtomicLong();
    private final Options opts;

    Report(Options opts) {
        this.opts = opts;
    }

    /** The current thread's stack without the agent's frames (null past the budget of stacks). */
    StackTraceElement[] stack() {
        if (stacks.incrementAndGet() > MAX_STACKS) {
            return null;
        }
        StackTraceElement[] all = new Throwable().getStackTrace();
        List<StackTraceElement> out = new ArrayList<>();
        for (StackTraceElement e : all) {
            if (e.getClassName().startsWith("io.stalecheck.agent.")) {
                continue;
            }
            out.add(e);
            if (out.size() == MAX_FRAMES) {
                break;
            }
        }
        return out.toArray(new StackTraceElement[0]);
    }

    void violation(Rt.Access a, Loc end, String ownerThread, StackTraceElement[] ownerStack, Rt.Suspect s) {
        String kind = a.sec.general ? "atomicity-violation" : "data-race";
        String key = kind + "|" + a.sec.id + "|" + a.loc.key() + "|" + end.key() + "|" + s.loc.key();
        synchronized (violations) {
            Violation v = violations.get(key);
            if (v == null) {
                v = new Violation();
                v.kind = kind;
                v.sec = a.sec;
                if (a.fid >= 0) {
                    Model.Field f = a.loc.field;
                    v.varClass = f.cls;
                    v.varField = f.name;
                    v.isStatic = f.isStatic;
                    v.identityHash = f.isStatic ? 0 : System.identityHashCode(a.key);
                } else {
                    v.varClass = a.key.getClass().getName();
                    v.varField = "[" + (-1L - a.fid) + "]";
                    v.identityHash = System.identityHashCode(a.key);
                }
                v.ownerThread = ownerThread;
                v.entry = a.loc;
                v.end = end;
                v.ownerStack = ownerStack;
                v.intruderThread = s.thread;
                v.intruder = s.loc;
                v.intruderStack = s.stack;
                violations.put(key, v);
            }
            v.count.incrementAndGet();
        }
    }

    int size() {
        synchronized (violations) {
            return violations.size();
        }
    }

    // ---- JSON ----

    void write(String out) throws IOException {
        List<Violation> vs;
        synchronized (violations) {
            vs = new ArrayList<>(violations.values());
        }
        Path json = Paths.get(out);
        Path dir = json.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        try (Writer w = Files.newBufferedWriter(json, StandardCharsets.UTF_8)) {
            w.write(json(vs));
        }
        String name = json.getFileName().toString();
        String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        Path sarif = json.resolveSibling(base + ".sarif");
        try (Writer w = Files.newBufferedWriter(sarif, StandardCharsets.UTF_8)) {
            w.write(sarif(vs));
        }
    }

    private String json(List<Violation> vs) {
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"tool\": \"stalecheck-agent\",\n  \"version\": ").append(Json.q(VERSION)).append(",\n");
        b.append("  \"options\": {\"mode\": ").append(Json.q(opts.mode.name().toLowerCase()))
                .append(", \"noise\": ").append(Json.q(opts.noise.name().toLowerCase()))
                .append(", \"permille\": ").append(opts.permille)
                .append(", \"sleep\": ").append(opts.sleepMs)
                .append(", \"seed\": ").append(opts.seedGiven ? Long.toString(opts.seed) : "null")
                .append(", \"heal\": ").append(opts.heal != null).append("},\n");
        b.append("  \"instrumented\": {\"classes\": ").append(classes.get()).append(", \"locations\": ")
                .append(locations.get()).append(", \"collisions\": ").append(Rt.COLLISIONS.get()).append(", \"healTimeouts\": ")
                .append(Rt.HEAL_TIMEOUTS.get()).append("},\n");
        b.append("  \"violations\": [");
        for (int k = 0; k < vs.size(); k++) {
            Violation v = vs.get(k);
            b.append(k == 0 ? "\n" : ",\n");
            b.append("    {\"kind\": ").append(Json.q(v.kind)).append(", \"section\": ").append(Json.q(v.sec.id))
                    .append(", \"origin\": ").append(Json.q(v.sec.origin)).append(", \"count\": ").append(v.count.get())
                    .append(",\n     \"variable\": {\"class\": ").append(Json.q(v.varClass)).append(", \"field\": ")
                    .append(Json.q(v.varField)).append(", \"static\": ").append(v.isStatic)
                    .append(", \"identityHash\": ").append(v.identityHash).append("},\n");
            b.append("     \"owner\": {\"thread\": ").append(Json.q(v.ownerThread)).append(", \"entry\": ")
                    .append(point(v.entry)).append(", \"end\": ").append(point(v.end)).append(", \"stack\": ")
                    .append(stack(v.ownerStack)).append("},\n");
            b.append("     \"intruder\": {\"thread\": ").append(Json.q(v.intruderThread)).append(", \"access\": ")
                    .append(Json.q(v.intruder.write ? "write" : "read")).append(", \"location\": ")
                    .append(point(v.intruder)).append(", \"stack\": ").append(stack(v.intruderStack)).append("}");
            if (v.sec.src != null && v.sec.src.finding != null) {
                b.append(",\n     \"finding\": ").append(findingJson(v.sec.src.finding));
            }
            b.append("}");
        }
        b.append(vs.isEmpty() ? "],\n" : "\n  ],\n");
        b.append("  \"sections\": [");
        boolean first = true;
        for (Sec s : sections) {
            if (s.entered.get() == 0 && s.src == null) {
                continue; // full mode: only the primitive sections that ran
            }
            b.append(first ? "\n" : ",\n");
            first = false;
            b.append("    {\"id\": ").append(Json.q(s.id)).append(", \"kind\": ")
                    .append(Json.q(s.general ? "general" : "primitive")).append(", \"origin\": ").append(Json.q(s.origin))
                    .append(", \"entered\": ").append(s.entered.get()).append(", \"noised\": ").append(s.noised.get())
                    .append(", \"noisedClean\": ").append(s.noisedClean.get()).append(", \"violations\": ")
                    .append(s.violations.get());
            if (s.src != null && s.src.finding != null) {
                b.append(", \"finding\": ").append(findingJson(s.src.finding));
            }
            if (s.heal) {
                b.append(", \"heal\": {\"healed\": ").append(s.healed.get()).append(", \"waits\": ")
                        .append(s.healWaits.get()).append(", \"timeouts\": ").append(s.healTimeouts.get()).append("}");
            }
            b.append("}");
        }
        b.append(first ? "],\n" : "\n  ],\n");
        b.append("  \"notes\": [");
        synchronized (notes) {
            for (int k = 0; k < notes.size(); k++) {
                b.append(k == 0 ? "" : ", ").append(Json.q(notes.get(k)));
            }
        }
        b.append("]\n}\n");
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static String findingJson(Object o) {
        if (o instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) o).entrySet()) {
                b.append(first ? "" : ", ").append(Json.q(e.getKey())).append(": ").append(findingJson(e.getValue()));
                first = false;
            }
            return b.append("}").toString();
        }
        if (o instanceof List) {
            StringBuilder b = new StringBuilder("[");
            boolean first = true;
            for (Object e : (List<Object>) o) {
                b.append(first ? "" : ", ").append(findingJson(e));
                first = false;
            }
            return b.append("]").toString();
        }
        if (o instanceof String) {
            return Json.q((String) o);
        }
        return String.valueOf(o);
    }

    private static String point(Loc l) {
        return "{\"class\": " + Json.q(l.cls) + ", \"method\": " + Json.q(l.method) + ", \"descriptor\": " + Json.q(l.desc)
                + ", \"pc\": " + l.pc + ", \"line\": " + (l.line > 0 ? Integer.toString(l.line) : "null") + ", \"file\": "
                + Json.q(uri(l)) + "}";
    }

    private static String stack(StackTraceElement[] st) {
        if (st == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("[");
        for (int k = 0; k < st.length; k++) {
            b.append(k == 0 ? "" : ", ").append(Json.q(st[k].toString()));
        }
        return b.append("]").toString();
    }

    /** The source file as a path from the source root (package directories), or null. */
    static String uri(Loc l) {
        if (l.file == null) {
            return null;
        }
        int dot = l.cls.lastIndexOf('.');
        return dot < 0 ? l.file : l.cls.substring(0, dot).replace('.', '/') + "/" + l.file;
    }

    // ---- SARIF 2.1.0 ----

    private String sarif(List<Violation> vs) {
        StringBuilder b = new StringBuilder();
        b.append("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n");
        b.append("  \"runs\": [{\n    \"tool\": {\"driver\": {\"name\": \"stalecheck-agent\", \"version\": ")
                .append(Json.q(VERSION))
                .append(", \"informationUri\": \"https://github.com/stalecheck/stalecheck\", \"rules\": [\n")
                .append("      {\"id\": \"data-race\", \"name\": \"DataRace\", \"shortDescription\": {\"text\": "
                        + "\"Two threads accessed a field at once, one of them writing (observed at run time)\"}, "
                        + "\"defaultConfiguration\": {\"level\": \"error\"}},\n")
                .append("      {\"id\": \"atomicity-violation\", \"name\": \"AtomicityViolation\", \"shortDescription\": "
                        + "{\"text\": \"Another thread accessed a variable inside an atomic section over it "
                        + "(observed at run time)\"}, \"defaultConfiguration\": {\"level\": \"error\"}}\n")
                .append("    ]}},\n");
        b.append("    \"automationDetails\": {\"id\": \"stalecheck-agent/\"},\n");
        b.append("    \"results\": [");
        for (int k = 0; k < vs.size(); k++) {
            Violation v = vs.get(k);
            String var = v.varClass + "." + v.varField + (v.isStatic ? "" : " (instance @" + Integer.toHexString(v.identityHash) + ")");
            String msg = (v.kind.equals("data-race") ? "Data race on " : "Atomicity violation on ") + var + ": thread '"
                    + v.ownerThread + "' was in section " + v.sec.id + " (" + v.entry.frame() + " to " + v.end.frame()
                    + ") when thread '" + v.intruderThread + "' " + (v.intruder.write ? "wrote" : "read") + " it at "
                    + v.intruder.frame() + " (" + v.count.get() + " time" + (v.count.get() == 1 ? "" : "s") + ")";
            b.append(k == 0 ? "\n" : ",\n");
            b.append("      {\"ruleId\": ").append(Json.q(v.kind)).append(", \"ruleIndex\": ")
                    .append(v.kind.equals("data-race") ? 0 : 1).append(", \"level\": \"error\", \"message\": {\"text\": ")
                    .append(Json.q(msg)).append("},\n        \"locations\": [").append(sarifLoc(v.entry, null))
                    .append("],\n        \"relatedLocations\": [").append(sarifLoc(v.end, 1)).append(", ")
                    .append(sarifLoc(v.intruder, 2)).append("],\n        \"codeFlows\": [{\"threadFlows\": [")
                    .append("{\"id\": ").append(Json.q(v.ownerThread)).append(", \"locations\": [")
                    .append(flowLoc(v.entry, "enters section " + v.sec.id)).append(", ")
                    .append(flowLoc(v.end, "leaves section " + v.sec.id)).append("]}, {\"id\": ")
                    .append(Json.q(v.intruderThread)).append(", \"locations\": [")
                    .append(flowLoc(v.intruder, (v.intruder.write ? "writes " : "reads ") + var + " inside the section"))
                    .append("]}]}],\n        \"properties\": {\"section\": ").append(Json.q(v.sec.id))
                    .append(", \"origin\": ").append(Json.q(v.sec.origin)).append(", \"count\": ").append(v.count.get())
                    .append(", \"variable\": ").append(Json.q(v.varClass + "." + v.varField)).append(", \"identityHash\": ")
                    .append(v.identityHash).append("}}");
        }
        b.append(vs.isEmpty() ? "]\n" : "\n    ]\n");
        b.append("  }]\n}\n");
        return b.toString();
    }

    private static String sarifLoc(Loc l, Integer id) {
        StringBuilder b = new StringBuilder("{");
        if (id != null) {
            b.append("\"id\": ").append(id).append(", ");
        }
        String uri = uri(l);
        if (uri != null) {
            b.append("\"physicalLocation\": {\"artifactLocation\": {\"uri\": ").append(Json.q(uri))
                    .append(", \"uriBaseId\": \"SRCROOT\"}");
            if (l.line > 0) {
                b.append(", \"region\": {\"startLine\": ").append(l.line).append("}");
            }
            b.append("}, ");
        }
        b.append("\"logicalLocations\": [{\"fullyQualifiedName\": ").append(Json.q(l.cls + "." + l.method + l.desc))
                .append(", \"kind\": \"function\"}], \"properties\": {\"pc\": ").append(l.pc).append("}}");
        return b.toString();
    }

    private static String flowLoc(Loc l, String what) {
        String loc = sarifLoc(l, null);
        return "{\"location\": " + loc.substring(0, loc.length() - 1) + ", \"message\": {\"text\": " + Json.q(what) + "}}}";
    }
}
