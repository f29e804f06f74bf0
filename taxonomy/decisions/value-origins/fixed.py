import argparse

import numpy as np
from keras.layers import Dense
from keras.models import Sequential

parser = argparse.ArgumentParser()
parser.add_argument('--rounds', type=int, default=40)
opts = parser.parse_args()


def train(net, xs, ys, rounds):
    net.fit(xs, ys, epochs=rounds, batch_size=8)


xs = np.random.rand(64, 3)
ys = (xs.sum(axis=1) > 1.5).astype('float32')
net = Sequential()
net.add(Dense(8, input_dim=3, activation='relu'))
net.add(Dense(1, activation='sigmoid'))
net.compile(loss='binary_crossentropy', optimizer='adam')
train(net, xs, ys, opts.rounds)
