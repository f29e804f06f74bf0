from keras.models import Sequential
from keras.layers import Dense
from keras.callbacks import LearningRateScheduler
from keras.optimizers import SGD
import numpy as np
signal = np.random.rand(300, 6)
level = np.random.rand(300)


def decay(epoch):
    return 0.05 if epoch < 6 else 0.005


reg = Sequential()
reg.add(Dense(16, input_dim=6, activation='relu'))
reg.add(Dense(1))
reg.compile(loss='mse', optimizer=SGD(lr=decay(0)))
reg.fit(signal, level, epochs=12, callbacks=[LearningRateScheduler(decay)])
