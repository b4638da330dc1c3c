package io.stalecheck.agent;

import java.util.concurrent.atomic.AtomicLong;

/** The run-time model: variables (fields), sections with their counters, instrumented locations. */
final class Model {
    private Model() {}

    /** A field: the variable of the sections over its instances (or over the class, if static). */
    static final class Field {
        final int id;
        final String cls;
        final String name;
        final boolean isStatic;
        /** The variable of a static field (the same object for every access). */
        final Object staticKey = new Object();
        /** The healing lock of the field, when a healed section is over it (else null). */
        volatile java.util.concurrent.locks.ReentrantLock healLock;
        /** The accesses every healed section over the field allows (others take the lock). */
        volatile int healAllowed;

        Field(int id, String cls, String name, boolean isStatic) {
            this.id = id;
            this.cls = cls;
            this.name = name;
            this.isStatic = isStatic;
        }
    }

    /** A section being monitored: from the sections file, or a primitive section of full mode. */
    static final class Sec {
        final String id;
        final boolean general;
        final String origin;
        final Sections.Section src;
        /** The accesses every end allows (a suspect outside it may break the section). */
        int allowedAll;
        boolean heal;
        final AtomicLong entered = new AtomicLong();
        final AtomicLong noised = new AtomicLong();
        final AtomicLong noisedClean = new AtomicLong();
        final AtomicLong violations = new AtomicLong();
        final AtomicLong healed = new AtomicLong();
        final AtomicLong healWaits = new AtomicLong();
        final AtomicLong healTimeouts = new AtomicLong();

        Sec(String id, boolean general, String origin, Sections.Section src, int allowedAll) {
            this.id = id;
            this.general = general;
            this.origin = origin;
            this.src = src;
            this.allowedAll = allowedAll;
        }
    }

    /** An instrumented location. */
    static final class Loc {
        int id;
        final String cls;
        final String method;
        final String desc;
        final String file;
        final int pc;
        final int line;
        /** The accessed field; null for an array access or a point that is no access. */
        Field field;
        /** An access instruction (else an exit point: an end that is no access, or a method's exit). */
        boolean access;
        boolean write;
        boolean array;
        /** The primitive section of this access, if monitored. */
        Sec primitive;
        /** The general section this access enters, if any. */
        Sec entryOf;
        /** The general sections this location ends, and what each allows here. */
        Sec[] endOf = new Sec[0];
        int[] endMask = new int[0];
        /** Identifies the method (method exits close the sections entered in it). */
        int methodId;
        boolean noise;
        /** A method's start: the healed sections entered in the method, whose locks it takes. */
        Sec[] healSecs = new Sec[0];
        Field[] healFields = new Field[0];

        Loc(String cls, String method, String desc, String file, int pc, int line) {
            this.cls = cls;
            this.method = method;
            this.desc = desc;
            this.file = file;
            this.pc = pc;
            this.line = line;
        }

        String key() {
            return Sections.Point.key(cls, method, desc, pc);
        }

        int mode() {
            return write ? Rt.WRITE : Rt.READ;
        }

        void addEnd(Sec s, int mask) {
            Sec[] e = new Sec[endOf.length + 1];
            int[] m = new int[endMask.length + 1];
            System.arraycopy(endOf, 0, e, 0, endOf.length);
            System.arraycopy(endMask, 0, m, 0, endMask.length);
            e[endOf.length] = s;
            m[endMask.length] = mask;
            endOf = e;
            endMask = m;
        }

        String frame() {
            return cls + "." + method + "(" + (file == null ? "Unknown Source" : file) + (line > 0 ? ":" + line : "") + ")";
        }
    }
}
