import json
import numpy as np
from keras.models import Sequential
from keras.layers import Dense

settings = json.load(open('settings.json'))
rows = np.loadtxt('rows.csv', delimiter=',')
x, y = rows[:, :8], rows[:, 8]
model = Sequential()
model.add(Dense(16, input_dim=8, activation='relu'))
model.add(Dense(1, activation='sigmoid'))
model.compile(loss='binary_crossentropy', optimizer='adam')
model.fit(x, y, epochs=settings['epochs'], batch_size=settings['batch'])
