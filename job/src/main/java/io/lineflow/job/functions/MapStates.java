package io.lineflow.job.functions;

import org.apache.flink.api.common.state.MapState;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

/** What the keyed functions here do with a {@link MapState} alike. */
final class MapStates {
    private MapStates() {}

    /**
     * Removes the entries {@code expired} accepts. The keys are collected first and removed with
     * {@link MapState#remove}, not through the iterator: {@code remove} also drops the current
     * key's map once it is empty, so that a device with nothing left holds no state.
     */
    static <K, V> void removeWhere(MapState<K, V> state, BiPredicate<K, V> expired) throws Exception {
        List<K> keys = new ArrayList<>();
        for (Map.Entry<K, V> e : state.entries()) {
            if (expired.test(e.getKey(), e.getValue())) {
                keys.add(e.getKey());
            }
        }
        for (K key : keys) {
            state.remove(key);
        }
    }
}
