import pandas as pd
from sklearn.preprocessing import MinMaxScaler
from keras.models import Sequential
from keras.layers import Dense
frame = pd.read_csv('readings.csv').values
frame = MinMaxScaler().fit_transform(frame)
inputs = frame[:, :5]
target = frame[:, 5]
reg = Sequential()
reg.add(Dense(12, input_dim=5, activation='relu'))
reg.add(Dense(1))
reg.compile(loss='mse', optimizer='adam')
reg.fit(inputs, target, epochs=25, batch_size=16)
