package inventorybug;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Immutable order: sku -> quantity. */
final class Order {
    final int id;
    final Map<String, Integer> lines;

    Order(int id, Map<String, Integer> lines) {
        this.id = id;
        this.lines = Collections.unmodifiableMap(new LinkedHashMap<>(lines));
    }
}
