package dev.tracegate.agent.instrumentation.configured;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.util.HashMap;
import java.util.Map;

/**
 * The parameter names of a class's methods as its class file records them: the {@code MethodParameters}
 * attribute (javac {@code -parameters}), else the local variable table (javac {@code -g}, Maven's default),
 * else {@code arg0..argN}. Read once per configured class when it is woven, never on the call path.
 */
final class ParameterNames {

    private ParameterNames() {
    }

    /** Names per method, keyed {@code name + descriptor} (e.g. {@code charge(Ljava/lang/String;)V}). */
    static Map<String, String[]> read(byte[] classFile) {
        Map<String, String[]> names = new HashMap<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                return new MethodNames(access, name, descriptor, names);
            }
        }, ClassReader.SKIP_FRAMES);
        return names;
    }

    /** {@code arg0..argN}: what the agent reports when a class file records no names. */
    static String[] positional(int count) {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = ("arg" + i).intern();
        }
        return names;
    }

    /** Collects one method's MethodParameters entries and the local variables that sit in parameter slots. */
    private static final class MethodNames extends MethodVisitor {
        private final String key;
        private final Map<String, String[]> into;
        private final String[] declared;
        private final String[] local;
        /** Local variable slot of each parameter (long and double take two). */
        private final int[] slots;
        private int declaredSeen;

        MethodNames(int access, String name, String descriptor, Map<String, String[]> into) {
            super(Opcodes.ASM9);
            this.key = name + descriptor;
            this.into = into;
            Type[] types = Type.getArgumentTypes(descriptor);
            this.declared = new String[types.length];
            this.local = new String[types.length];
            this.slots = new int[types.length];
            int slot = (access & Opcodes.ACC_STATIC) != 0 ? 0 : 1;
            for (int i = 0; i < types.length; i++) {
                slots[i] = slot;
                slot += types[i].getSize();
            }
        }

        @Override
        public void visitParameter(String name, int access) {
            if (declaredSeen < declared.length) {
                declared[declaredSeen] = name; // null for an unnamed entry
            }
            declaredSeen++;
        }

        @Override
        public void visitLocalVariable(String name, String descriptor, String signature, Label start, Label end, int index) {
            for (int i = 0; i < slots.length; i++) {
                if (slots[i] == index && local[i] == null) {
                    local[i] = name;
                    return;
                }
            }
        }

        @Override
        public void visitEnd() {
            // MethodParameters describes every parameter of the descriptor only when the counts agree (javac
            // adds no entries for synthetic parameters of methods, but a foreign compiler might)
            boolean useDeclared = declaredSeen == declared.length;
            String[] names = positional(declared.length);
            for (int i = 0; i < names.length; i++) {
                if (useDeclared && declared[i] != null) {
                    names[i] = declared[i];
                } else if (local[i] != null) {
                    names[i] = local[i];
                }
                names[i] = names[i].intern();   // the contracts' argument paths are interned too: a lookup compares references
            }
            into.put(key, names);
        }
    }
}
