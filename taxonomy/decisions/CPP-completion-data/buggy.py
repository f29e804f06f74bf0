from keras.models import Sequential
from keras.layers import Dense

net = Sequential()
net.add(Dense(24, input_dim=7, activation="relu"))
net.add(Dense(4, activation="softmax"))
