import numpy as np
from keras.models import Sequential
from keras.layers import Dense

table = np.loadtxt('measurements.csv', delimiter=',')
x, y = table[:, :5], table[:, 5]
model = Sequential()
model.add(Dense(12, input_dim=5, activation='relu'))
model.add(Dense(1, activation='relu'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.load_weights('earlier_run.h5')
model.fit(x, y, epochs=15, batch_size=10)
