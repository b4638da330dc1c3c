package symtab;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/** An interned identifier: symbols with equal names must be the same object, so compilers compare them with ==. */
final class Symbol {
    final String name;
    final int id;

    Symbol(String name, int id) {
        this.name = name;
        this.id = id;
    }

    @Override public String toString() { return name + "#" + id; }
}

/** Symbol table shared by parallel parser threads. */
final class SymbolTable {
    private final ConcurrentMap<String, Symbol> symbols = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger();

    /** Returns the unique symbol for the name, creating it on first use (atomically, via computeIfAbsent). */
    Symbol intern(String name) {
        return symbols.computeIfAbsent(name, n -> new Symbol(n, nextId.getAndIncrement()));
    }

    int size() { return symbols.size(); }

    int idsIssued() { return nextId.get(); }
}
