package io.github.redissonratelimit.contract;

/** The algorithm contract on a redis-server of its own (restarted empty in the steady run). */
class StandaloneAlgorithmContractTest extends AlgorithmContract {

    @Override
    Topology topology() {
        return Topology.standalone();
    }
}
