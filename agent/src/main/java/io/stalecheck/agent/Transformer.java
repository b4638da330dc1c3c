package io.stalecheck.agent;

import io.stalecheck.agent.Model.Field;
import io.stalecheck.agent.Model.Loc;
import io.stalecheck.agent.Model.Sec;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * Instruments the classes the sections name (or, in full mode, every class that is not the JDK's
 * or the agent's): before and after each monitored access, a call to {@link Rt}; before an end
 * point that is no access, {@link Rt#exit}; before each return or throw of a method where a
 * general section starts, {@link Rt#methodExit}. Never final or volatile fields, never
 * {@code <clinit>}, never the bootstrap loader's classes, never the agent's own.
 */
final class Transformer implements ClassFileTransformer {
    private static final String RT = "io/stalecheck/agent/Rt";
    private final Options opts;
    private final Sections sections;
    private final Map<String, Sec> secs;
    private final Report report;
    private final Map<String, Field> fields = new HashMap<>();
    private final Map<String, FieldFlags> flags = new ConcurrentHashMap<>();
    private final Map<String, Integer> healedVars;
    private int methods;

    Transformer(Options opts, Sections sections, Map<String, Sec> secs, Report report, Map<String, Integer> healedVars) {
        this.opts = opts;
        this.sections = sections;
        this.secs = secs;
        this.report = report;
        this.healedVars = healedVars;
    }

    /** What a field is: its declaring class and whether it is final, volatile, static. */
    static final class FieldFlags {
        final String declaring;
        final int access;

        FieldFlags(String declaring, int access) {
            this.declaring = declaring;
            this.access = access;
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (className == null || loader == null || !Rt.enabled && Rt.report == null) {
            return null;
        }
        if (skipped(className)) {
            return null;
        }
        if (opts.mode == Options.Mode.SECTIONS && !sections.classes.containsKey(className)) {
            return null;
        }
        try {
            return instrument(loader, className, bytes);
        } catch (Throwable t) {
            note("not instrumented: " + className.replace('/', '.') + ": " + t);
            return null;
        }
    }

    private boolean skipped(String n) {
        if (n.startsWith("io/stalecheck/agent/") || n.startsWith("java/") || n.startsWith("javax/")
                || n.startsWith("jdk/") || n.startsWith("sun/") || n.startsWith("com/sun/")) {
            return true;
        }
        String dotted = n.replace('/', '.');
        for (String p : opts.exclude) {
            if (dotted.startsWith(p)) {
                return true;
            }
        }
        if (!opts.include.isEmpty()) {
            for (String p : opts.include) {
                if (dotted.startsWith(p)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private void note(String s) {
        synchronized (report.notes) {
            if (report.notes.size() < 100) {
                report.notes.add(s);
            }
        }
    }

    private byte[] instrument(ClassLoader loader, String className, byte[] bytes) {
        ClassReader cr = new ClassReader(bytes);
        ClassNode cn = new ClassNode();
        cr.accept(cn, 0);
        Map<String, int[]> offsets = Offsets.of(cr);
        String dotted = className.replace('/', '.');
        boolean changed = false;
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals("<clinit>") || mn.instructions.size() == 0) {
                continue;
            }
            int[] pcs = offsets.get(mn.name + mn.desc);
            List<AbstractInsnNode> real = new ArrayList<>();
            for (AbstractInsnNode in = mn.instructions.getFirst(); in != null; in = in.getNext()) {
                if (in.getOpcode() >= 0) {
                    real.add(in);
                }
            }
            if (pcs == null || pcs.length != real.size()) {
                note("not instrumented: " + dotted + "." + mn.name + mn.desc + ": instruction offsets do not match");
                continue;
            }
            if (instrumentMethod(loader, cn, dotted, mn, pcs)) {
                changed = true;
            }
        }
        if (!changed) {
            return null;
        }
        report.classes.incrementAndGet();
        ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        cn.accept(cw);
        return cw.toByteArray();
    }

    private boolean instrumentMethod(ClassLoader loader, ClassNode cn, String dotted, MethodNode mn, int[] pcs) {
        int line = 0;
        int k = 0;
        boolean changed = false;
        boolean entries = false;
        int methodId;
        synchronized (this) {
            methodId = ++methods;
        }
        List<AbstractInsnNode> exits = new ArrayList<>();
        List<Sec> healSecs = new ArrayList<>();
        List<Field> healFields = new ArrayList<>();
        for (AbstractInsnNode in = mn.instructions.getFirst(); in != null; ) {
            AbstractInsnNode next = in.getNext();
            if (in instanceof LineNumberNode) {
                line = ((LineNumberNode) in).line;
                in = next;
                continue;
            }
            int op = in.getOpcode();
            if (op < 0) {
                in = next;
                continue;
            }
            int pc = pcs[k++];
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN || op == Opcodes.ATHROW) {
                exits.add(in);
            }
            String key = Sections.Point.key(dotted, mn.name, mn.desc, pc);
            List<Sections.Section> named = sections.at(key);
            boolean fieldInsn = in instanceof FieldInsnNode;
            boolean arrayInsn = op >= Opcodes.IALOAD && op <= Opcodes.SALOAD || op >= Opcodes.IASTORE && op <= Opcodes.SASTORE;
            if (!fieldInsn && !(arrayInsn && opts.mode == Options.Mode.FULL) && named.isEmpty()) {
                in = next;
                continue;
            }
            Loc l = new Loc(dotted, mn.name, mn.desc, cn.sourceFile, pc, line);
            l.methodId = methodId;
            FieldFlags ff = null;
            if (fieldInsn) {
                FieldInsnNode fi = (FieldInsnNode) in;
                ff = flags(loader, cn, fi.owner, fi.name);
                // A final or volatile field is no variable of its own; it is monitored only as
                // the holder of an object a general section is over (a check-then-act on a
                // thread-safe collection held in a final field).
                boolean holder = false;
                for (Sections.Section s : named) {
                    holder |= s.general && s.varField.equals(fi.name);
                }
                if ((ff.access & (Opcodes.ACC_FINAL | Opcodes.ACC_VOLATILE)) != 0 && !holder) {
                    if (!named.isEmpty()) {
                        note("section point " + key + " is an access of a final or volatile field: not monitored");
                    }
                    in = next;
                    continue;
                }
                l.access = true;
                l.write = op == Opcodes.PUTFIELD || op == Opcodes.PUTSTATIC;
                l.field = field(ff.declaring, fi.name, op == Opcodes.GETSTATIC || op == Opcodes.PUTSTATIC);
            } else if (arrayInsn) {
                l.access = true;
                l.array = true;
                l.write = op >= Opcodes.IASTORE;
            }
            boolean monitored = false;
            if (opts.mode == Options.Mode.FULL && l.access) {
                Sec p = new Sec("P:" + key, false, "data-race", null, l.write ? 0 : Rt.READ);
                l.primitive = p;
                synchronized (report.sections) {
                    report.sections.add(p);
                }
                monitored = true;
            }
            boolean exitPoint = false;
            for (Sections.Section s : named) {
                Sec sec = secs.get(s.id);
                boolean ofVar = l.field != null && l.field.name.equals(s.varField);
                if (s.entry.key().equals(key)) {
                    if (!ofVar) {
                        note("section " + s.id + ": its entry " + key + " is no access of " + s.varClass + "." + s.varField);
                        continue;
                    }
                    if (s.general) {
                        l.entryOf = sec;
                        entries = true;
                        if (sec.heal && !healSecs.contains(sec)) {
                            healSecs.add(sec);
                            healFields.add(l.field);
                        }
                    } else {
                        l.primitive = sec;
                        sec.allowedAll = l.write ? 0 : Rt.READ;
                    }
                    monitored = true;
                }
                for (int e = 0; e < s.ends.size(); e++) {
                    if (s.general && s.ends.get(e).key().equals(key)) {
                        l.addEnd(sec, s.allowed.get(e));
                        if (ofVar) {
                            monitored = true;
                        } else {
                            exitPoint = true;
                        }
                    }
                }
            }
            if (!monitored && !exitPoint) {
                in = next;
                continue;
            }
            l.noise = noiseAt(l);
            int id = Agent.register(l);
            report.locations.incrementAndGet();
            changed = true;
            if (monitored) {
                mn.instructions.insertBefore(in, before(in, id, l));
                InsnList after = new InsnList();
                after.add(new LdcInsnNode(id));
                after.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "after", "(I)V", false));
                mn.instructions.insert(in, after);
            } else {
                InsnList ex = new InsnList();
                ex.add(new LdcInsnNode(id));
                ex.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "exit", "(I)V", false));
                mn.instructions.insertBefore(in, ex);
            }
            in = next;
        }
        if (entries) {
            Loc m = new Loc(dotted, mn.name, mn.desc, cn.sourceFile, -1, 0);
            m.methodId = methodId;
            int id = Agent.register(m);
            for (AbstractInsnNode x : exits) {
                InsnList ex = new InsnList();
                ex.add(new LdcInsnNode(id));
                ex.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "methodExit", "(I)V", false));
                mn.instructions.insertBefore(x, ex);
            }
        }
        if (!healSecs.isEmpty()) {
            Loc h = new Loc(dotted, mn.name, mn.desc, cn.sourceFile, 0, 0);
            h.methodId = methodId;
            h.healSecs = healSecs.toArray(new Sec[0]);
            h.healFields = healFields.toArray(new Field[0]);
            int id = Agent.register(h);
            InsnList start = new InsnList();
            start.add(new LdcInsnNode(id));
            start.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "healEnter", "(I)V", false));
            mn.instructions.insert(start);
        }
        return changed;
    }

    private boolean noiseAt(Loc l) {
        switch (opts.noise) {
            case RANDOM:
                return true;
            case VARIABLE:
                if (l.field != null && opts.targets.contains(l.field.cls + "." + l.field.name)) {
                    return true;
                }
                return secTargeted(l);
            case LOCATION:
                if (opts.targets.contains(l.cls + "." + l.method + ":" + l.line) || opts.targets.contains(l.cls + "." + l.method)
                        || opts.targets.contains(l.key())) {
                    return true;
                }
                return secTargeted(l);
            default:
                return false;
        }
    }

    private boolean secTargeted(Loc l) {
        return l.entryOf != null && opts.targets.contains(l.entryOf.id) || l.primitive != null && opts.targets.contains(l.primitive.id);
    }

    /** The code before an access: its variable's instance (or null) and the location id, to Rt. */
    private static InsnList before(AbstractInsnNode in, int id, Loc l) {
        InsnList b = new InsnList();
        int op = in.getOpcode();
        if (!l.access) {
            return b;
        }
        if (l.array) {
            if (op >= Opcodes.IALOAD && op <= Opcodes.SALOAD) {
                b.add(new InsnNode(Opcodes.DUP2)); // arr, idx
            } else if (op == Opcodes.LASTORE || op == Opcodes.DASTORE) {
                b.add(new InsnNode(Opcodes.DUP2_X2)); // arr, idx, v2 -> v2, arr, idx, v2
                b.add(new InsnNode(Opcodes.POP2)); // v2, arr, idx
                b.add(new InsnNode(Opcodes.DUP2_X2)); // arr, idx, v2, arr, idx
            } else {
                b.add(new InsnNode(Opcodes.DUP_X2)); // arr, idx, v -> v, arr, idx, v
                b.add(new InsnNode(Opcodes.POP)); // v, arr, idx
                b.add(new InsnNode(Opcodes.DUP2_X1)); // arr, idx, v, arr, idx
            }
            b.add(new LdcInsnNode(id));
            b.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "beforeArray", "(Ljava/lang/Object;II)V", false));
            return b;
        }
        FieldInsnNode fi = (FieldInsnNode) in;
        if (op == Opcodes.GETSTATIC || op == Opcodes.PUTSTATIC) {
            b.add(new InsnNode(Opcodes.ACONST_NULL));
        } else if (op == Opcodes.GETFIELD) {
            b.add(new InsnNode(Opcodes.DUP));
        } else if (Type.getType(fi.desc).getSize() == 2) {
            b.add(new InsnNode(Opcodes.DUP2_X1)); // obj, v2 -> v2, obj, v2
            b.add(new InsnNode(Opcodes.POP2)); // v2, obj
            b.add(new InsnNode(Opcodes.DUP_X2)); // obj, v2, obj
        } else {
            b.add(new InsnNode(Opcodes.DUP2)); // obj, v, obj, v
            b.add(new InsnNode(Opcodes.POP)); // obj, v, obj
        }
        b.add(new LdcInsnNode(id));
        b.add(new MethodInsnNode(Opcodes.INVOKESTATIC, RT, "before", "(Ljava/lang/Object;I)V", false));
        return b;
    }

    private synchronized Field field(String cls, String name, boolean isStatic) {
        String k = cls + "." + name;
        Field f = fields.get(k);
        if (f == null) {
            f = new Field(fields.size(), cls, name, isStatic);
            Integer allowed = healedVars.get(k);
            if (allowed != null) {
                f.healAllowed = allowed;
                f.healLock = new java.util.concurrent.locks.ReentrantLock();
            }
            fields.put(k, f);
        }
        return f;
    }

    private FieldFlags flags(ClassLoader loader, ClassNode self, String owner, String name) {
        String k = owner + "." + name;
        FieldFlags f = flags.get(k);
        if (f == null) {
            f = resolve(loader, self, owner, name, 0);
            if (f == null) {
                f = new FieldFlags(owner.replace('/', '.'), 0);
            }
            flags.put(k, f);
        }
        return f;
    }

    private FieldFlags resolve(ClassLoader loader, ClassNode self, String owner, String name, int depth) {
        if (owner == null || depth > 20) {
            return null;
        }
        final List<String> supers = new ArrayList<>();
        final int[] found = {-1};
        if (owner.equals(self.name)) {
            for (FieldNode fn : self.fields) {
                if (fn.name.equals(name)) {
                    found[0] = fn.access;
                }
            }
            supers.add(self.superName);
            supers.addAll(self.interfaces);
        } else {
            try (InputStream in = loader.getResourceAsStream(owner + ".class")) {
                if (in == null) {
                    return null;
                }
                new ClassReader(in).accept(new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public void visit(int v, int a, String n, String sig, String sup, String[] itfs) {
                        supers.add(sup);
                        if (itfs != null) {
                            for (String i : itfs) {
                                supers.add(i);
                            }
                        }
                    }

                    @Override
                    public FieldVisitor visitField(int a, String n, String d, String sig, Object v) {
                        if (n.equals(name)) {
                            found[0] = a;
                        }
                        return null;
                    }
                }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
            } catch (Exception e) {
                return null;
            }
        }
        if (found[0] >= 0) {
            return new FieldFlags(owner.replace('/', '.'), found[0]);
        }
        for (String s : supers) {
            FieldFlags f = resolve(loader, self, s, name, depth + 1);
            if (f != null) {
                return f;
            }
        }
        return null;
    }
}
