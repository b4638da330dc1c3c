package symtab;

/** Two parser threads intern the identifiers of the same generated compilation unit. */
public class Main {
    static final int IDENTIFIERS = 20000;

    static final class Parser extends Thread {
        private final SymbolTable table;
        final Symbol[] resolved = new Symbol[IDENTIFIERS];  // read by main after join

        Parser(String name, SymbolTable table) { super(name); this.table = table; }

        @Override public void run() {
            for (int i = 0; i < IDENTIFIERS; i++) {
                String identifier = (i % 3 == 0 ? "field_" : i % 3 == 1 ? "local_" : "method_") + i;
                resolved[i] = table.intern(identifier);
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        SymbolTable table = new SymbolTable();
        Parser p1 = new Parser("parser-1", table);
        Parser p2 = new Parser("parser-2", table);
        p1.start(); p2.start();
        p1.join(); p2.join();
        int mismatches = 0;
        for (int i = 0; i < IDENTIFIERS; i++) {
            if (p1.resolved[i] != p2.resolved[i]) mismatches++;
        }
        boolean ok = mismatches == 0 && table.idsIssued() == table.size();
        System.out.println("symbols=" + table.size() + " ids issued=" + table.idsIssued()
                + " non-identical resolutions=" + mismatches + (ok ? " OK" : " BUG"));
    }
}
