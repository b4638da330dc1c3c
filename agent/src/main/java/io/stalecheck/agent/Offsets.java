package io.stalecheck.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassReader;

/**
 * The bytecode offset ({@code pc}, as {@code javap -c} numbers it) of every instruction of every
 * method of a class file, read from the raw Code attributes: ASM's tree API numbers instructions
 * but not their offsets, and the sections file names locations by {@code pc}.
 */
final class Offsets {
    private Offsets() {}

    private static final int[] LEN = new int[256];

    static {
        for (int op = 0; op < 256; op++) {
            LEN[op] = 1;
        }
        LEN[0x10] = 2; // bipush
        LEN[0x11] = 3; // sipush
        LEN[0x12] = 2; // ldc
        LEN[0x13] = 3; // ldc_w
        LEN[0x14] = 3; // ldc2_w
        for (int op = 0x15; op <= 0x19; op++) {
            LEN[op] = 2; // xload
        }
        for (int op = 0x36; op <= 0x3a; op++) {
            LEN[op] = 2; // xstore
        }
        LEN[0x84] = 3; // iinc
        for (int op = 0x99; op <= 0xa8; op++) {
            LEN[op] = 3; // if*, goto, jsr
        }
        LEN[0xa9] = 2; // ret
        for (int op = 0xb2; op <= 0xb8; op++) {
            LEN[op] = 3; // field and method instructions
        }
        LEN[0xb9] = 5; // invokeinterface
        LEN[0xba] = 5; // invokedynamic
        LEN[0xbb] = 3; // new
        LEN[0xbc] = 2; // newarray
        LEN[0xbd] = 3; // anewarray
        LEN[0xc0] = 3; // checkcast
        LEN[0xc1] = 3; // instanceof
        LEN[0xc5] = 4; // multianewarray
        LEN[0xc6] = 3; // ifnull
        LEN[0xc7] = 3; // ifnonnull
        LEN[0xc8] = 5; // goto_w
        LEN[0xc9] = 5; // jsr_w
    }

    /** Method {@code name + descriptor} → the offsets of its instructions, in order. */
    static Map<String, int[]> of(ClassReader cr) {
        Map<String, int[]> out = new HashMap<>();
        char[] buf = new char[cr.getMaxStringLength() + 1];
        int u = cr.header + 6;
        int interfaces = cr.readUnsignedShort(u);
        u += 2 + 2 * interfaces;
        int fields = cr.readUnsignedShort(u);
        u += 2;
        for (int f = 0; f < fields; f++) {
            u = skipMember(cr, u);
        }
        int methods = cr.readUnsignedShort(u);
        u += 2;
        for (int m = 0; m < methods; m++) {
            String name = cr.readUTF8(u + 2, buf);
            String desc = cr.readUTF8(u + 4, buf);
            int attrs = cr.readUnsignedShort(u + 6);
            u += 8;
            for (int a = 0; a < attrs; a++) {
                String an = cr.readUTF8(u, buf);
                int len = cr.readInt(u + 2);
                if ("Code".equals(an)) {
                    int codeLen = cr.readInt(u + 10);
                    out.put(name + desc, decode(cr, u + 14, codeLen));
                }
                u += 6 + len;
            }
        }
        return out;
    }

    private static int skipMember(ClassReader cr, int u) {
        int attrs = cr.readUnsignedShort(u + 6);
        u += 8;
        for (int a = 0; a < attrs; a++) {
            u += 6 + cr.readInt(u + 2);
        }
        return u;
    }

    private static int[] decode(ClassReader cr, int start, int len) {
        List<Integer> pcs = new ArrayList<>();
        int pc = 0;
        while (pc < len) {
            int op = cr.readByte(start + pc) & 0xff;
            pcs.add(pc);
            if (op == 0xaa) { // tableswitch
                int p = (pc + 4) & ~3;
                int low = cr.readInt(start + p + 4);
                int high = cr.readInt(start + p + 8);
                pc = p + 12 + 4 * (high - low + 1);
            } else if (op == 0xab) { // lookupswitch
                int p = (pc + 4) & ~3;
                int pairs = cr.readInt(start + p + 4);
                pc = p + 8 + 8 * pairs;
            } else if (op == 0xc4) { // wide
                int op2 = cr.readByte(start + pc + 1) & 0xff;
                pc += op2 == 0x84 ? 6 : 4;
            } else {
                pc += LEN[op];
            }
        }
        int[] out = new int[pcs.size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = pcs.get(k);
        }
        return out;
    }
}
